//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/streaming"
)

// received is one notifications/gasoline/event as a client got it.
type received struct {
	at     time.Time
	params map[string]any
}

// events flattens a notification into its events: itself, or its batch.
func (r received) events() []map[string]any {
	if list, ok := r.params["events"].([]any); ok {
		out := make([]map[string]any, len(list))
		for i, e := range list {
			out[i] = e.(map[string]any)
		}
		return out
	}
	return []map[string]any{r.params}
}

// listen collects a client's streamed notifications. NewStdioMCPClient
// starts its transport but leaves notifications undispatched until the
// client's own Start (idempotent) wires them.
func listen(t *testing.T, c mcpClient) <-chan received {
	t.Helper()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ch := make(chan received, 64)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/gasoline/event" {
			select {
			case ch <- received{time.Now(), n.Params.AdditionalFields}:
			default:
			}
		}
	})
	return ch
}

// collect reads notifications until every wanted message (by prefix) was
// seen, and returns them in arrival order.
func collect(t *testing.T, ch <-chan received, within time.Duration, want ...string) []received {
	t.Helper()
	var got []received
	seen := map[string]bool{}
	deadline := time.After(within)
	for len(seen) < len(want) {
		select {
		case r := <-ch:
			got = append(got, r)
			for _, e := range r.events() {
				for _, w := range want {
					if strings.HasPrefix(e["message"].(string), w) {
						seen[w] = true
					}
				}
			}
		case <-deadline:
			t.Fatalf("within %v got %d notifications, saw %v of %q: %s", within, len(got), seen, want, mustJSON(got))
		}
	}
	return got
}

func click3(t *testing.T, b *browser, sel string) {
	t.Helper()
	for range 3 {
		if err := chromedp.Do(b.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}
}

func configureStreaming(t *testing.T, c mcpClient, args map[string]any) map[string]any {
	t.Helper()
	args["action"] = "streaming"
	out, isErr, err := callTool(c, "configure", args)
	if err != nil || isErr {
		t.Fatalf("configure streaming %v: %v %v %v", args, err, isErr, out)
	}
	return out
}

// An AI behind a relay enables streaming; a page that starts failing with
// 500s under three quick clicks reaches it as notifications (a server error
// and user frustration), batched, and the next failures no sooner than the
// throttle allows; the other AI, which did not enable streaming, hears
// nothing; disabling stops them.
func TestStreamingThroughARelay(t *testing.T) {
	port := freePort(t)
	owner := mcpStdio(t, port, "owner-agent") // `gasoline --mcp` that owns the port
	relayed := mcpStdio(t, port, "relay-agent")
	waitFor(t, 5*time.Second, "both clients on the owner", func() bool {
		return containsAll(mustJSON(health(port)["mcp_clients"]), "owner-agent", "relay-agent")
	})
	toRelay, toOwner := listen(t, relayed), listen(t, owner)

	site := fixtureServer(t)
	b := launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(port)))
	b.setCapture(t, map[string]any{})
	const throttle = 3 // longer than the 2 s batch window, so spacing shows the throttle
	cfg := configureStreaming(t, relayed, map[string]any{"enabled": true, "throttle_seconds": throttle,
		"events": []any{"network_errors", "user_frustration"}})
	if cfg["enabled"] != true {
		t.Fatalf("config: %v", cfg)
	}

	if err := chromedp.Do(b.ctx, chromedp.Navigate(site+"/streaming.html")); err != nil {
		t.Fatal(err)
	}
	// The page works at first: its first save is captured, with a 200.
	waitFor(t, 10*time.Second, "the first save", func() bool {
		return strings.Contains(mustJSON(observe(t, relayed, map[string]any{"what": "network"})), `"status":200`)
	})
	clicked := time.Now()
	click3(t, b, "#save")
	got := collect(t, toRelay, 15*time.Second, "Server error: POST /api/save → 500", "Repeated clicks on #save")
	first := got[0].at.Sub(clicked)
	t.Logf("%d notifications, the first %v after the first click: %s", len(got), first.Round(time.Millisecond), mustJSON(got[0].params))
	// Rapid events wait out the batch window and go together.
	if first < streaming.BatchWindow {
		t.Errorf("notified %v after the first click, before the %v batch window ended", first, streaming.BatchWindow)
	}

	// More failures at once: they wait for the throttle, not just the batch window.
	click3(t, b, "#retry")
	got = append(got, collect(t, toRelay, 15*time.Second, "Server error: POST /api/retry → 500", "Repeated clicks on #retry")...)
	for i := 1; i < len(got); i++ {
		// The server spaces them by the throttle; the pipe may bunch them a little.
		gap := got[i].at.Sub(got[i-1].at)
		t.Logf("notification %d: %v after the previous one", i, gap.Round(time.Millisecond))
		if gap < throttle*time.Second-250*time.Millisecond {
			t.Errorf("notifications %d and %d only %v apart, throttle %ds", i-1, i, gap, throttle)
		}
	}
	for _, r := range got {
		for _, e := range r.events() {
			if c := e["category"]; c != "network_errors" && c != "user_frustration" {
				t.Errorf("category %v was not asked for: %v", c, e)
			}
			if strings.HasPrefix(e["message"].(string), "Server error: POST /api/save") && !strings.Contains(mustJSON(e["context"]), `"response_preview":"{\"error\":\"Internal server error\"}"`) {
				t.Errorf("the server error does not quote the response: %v", e)
			}
		}
	}

	// The relayed AI turns streaming off; the owner's AI turns it on as a
	// witness: when it hears of the next failures, the relayed AI would have.
	if out := configureStreaming(t, relayed, map[string]any{"enabled": false}); out["enabled"] != false {
		t.Fatalf("disable: %v", out)
	}
	configureStreaming(t, owner, map[string]any{"enabled": true, "throttle_seconds": 1})
	select {
	case r := <-toOwner:
		t.Fatalf("the owner's AI was notified before it enabled streaming: %v", r.params)
	default:
	}
	click3(t, b, "#cancel")
	collect(t, toOwner, 15*time.Second, "Server error: POST /api/cancel → 500", "Repeated clicks on #cancel")
	// Were the relayed AI still streaming, its notification would be due by
	// now or, throttled, a throttle period after its last one.
	wait := max(0, time.Until(got[len(got)-1].at.Add(throttle*time.Second)))
	grace := time.After(wait + 500*time.Millisecond)
	for {
		select {
		case r := <-toRelay:
			if strings.Contains(mustJSON(r.params), "cancel") {
				t.Fatalf("notified after disabling: %v", r.params)
			}
			continue
		case <-grace:
		}
		break
	}
}

// Streaming is a setting of the AI's session, so when the owner dies the
// relay that takes over gives the new server the same settings again.
func TestStreamingSurvivesTakeover(t *testing.T) {
	port := freePort(t)
	owner := startOwner(t, port)
	c := mcpStdio(t, port, "relay-agent")
	ch := listen(t, c)
	configureStreaming(t, c, map[string]any{"enabled": true, "throttle_seconds": 1, "events": []any{"network_errors"}})
	configureStreaming(t, c, map[string]any{"url_filter": "app.test"})
	// A refused call changes nothing, and is not replayed either.
	if out, isErr, _ := callTool(c, "configure", map[string]any{"action": "streaming", "events": []any{"nope"}}); !isErr {
		t.Fatalf("bad events accepted: %v", out)
	}

	if err := owner.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	owner.Wait()
	want := `{"enabled":true,"events":["network_errors"],"throttle_seconds":1,"url_filter":"app.test"}`
	waitFor(t, 10*time.Second, "the new server to have the session's streaming settings", func() bool {
		out, isErr, err := callTool(c, "configure", map[string]any{"action": "streaming"})
		return err == nil && !isErr && mustJSON(out) == want
	})

	body := `{"entries":[{"method":"GET","url":"http://other.test/api/a","status":502},{"method":"GET","url":"http://app.test/api/b","status":503}]}`
	resp, err := http.Post("http://127.0.0.1:"+strconv.Itoa(port)+"/network", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := collect(t, ch, 10*time.Second, "Server error: GET http://app.test/api/b → 503")
	if s := mustJSON(got[0].params); strings.Contains(s, "other.test") {
		t.Fatalf("url_filter lost in the takeover: %s", s)
	}
}
