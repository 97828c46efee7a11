package server

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/streaming"
)

// streamed collects the notifications/gasoline/event a client receives.
func streamed(c *client.Client) <-chan mcp.JSONRPCNotification {
	ch := make(chan mcp.JSONRPCNotification, 16)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == streaming.Method {
			select {
			case ch <- n:
			default:
			}
		}
	})
	return ch
}

// nextEvent waits for a notification; the streamer batches for 2 s, so a
// notification is due about that long after what caused it.
func nextEvent(t *testing.T, ch <-chan mcp.JSONRPCNotification) map[string]any {
	t.Helper()
	select {
	case n := <-ch:
		return n.Params.AdditionalFields
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/gasoline/event within 10 s")
		return nil
	}
}

func serverError(t *testing.T, base, path string) {
	t.Helper()
	body := `{"entries":[{"method":"POST","url":"http://app.test` + path + `","status":500,"page":"http://app.test/"}]}`
	if code, _ := do(t, base, call{method: "POST", path: "/network", body: body}); code != 200 {
		t.Fatalf("POST /network: %d", code)
	}
}

// Streaming is per session: the AI that enables it is notified, another is
// not, and disabling stops the notifications.
func TestStreamingNotifiesTheSessionThatEnabledIt(t *testing.T) {
	s, base, path, _ := auditedServer(t)
	a, b := clientNamed(t, s, "claude-code"), clientNamed(t, s, "cursor")
	toA, toB := streamed(a), streamed(b)

	out, isErr := callTool(t, a, "configure", map[string]any{"action": "streaming"})
	if isErr || mustJSON(out) != `{"enabled":false,"events":["errors","network_errors","performance","user_frustration","security"],"throttle_seconds":5}` {
		t.Fatalf("default: %v", out)
	}
	for _, bad := range []map[string]any{
		{"throttle_seconds": 0}, {"throttle_seconds": 61}, {"throttle_seconds": 2.5},
		{"events": []any{"nope"}}, {"events": "errors"}, {"enabled": "yes"},
		{"url_filter": strings.Repeat("x", streaming.MaxURLFilter+1)},
	} {
		bad["action"] = "streaming"
		if out, isErr := callTool(t, a, "configure", bad); !isErr || out["error"] != "invalid_param" {
			t.Errorf("%v: %v", bad, out)
		}
	}
	out, isErr = callTool(t, a, "configure", map[string]any{"action": "streaming", "enabled": true,
		"throttle_seconds": 1, "events": []any{"user_frustration", "network_errors"}, "url_filter": "app.test"})
	if isErr || mustJSON(out) != `{"enabled":true,"events":["network_errors","user_frustration"],"throttle_seconds":1,"url_filter":"app.test"}` {
		t.Fatalf("enable: %v", out)
	}

	serverError(t, base, "/api/users")
	n := nextEvent(t, toA)
	if n["message"] != "Server error: POST /api/users → 500" || n["category"] != "network_errors" || n["severity"] != "error" {
		t.Fatalf("notification: %v", n)
	}

	// b turns it on, a turns it off: the next error reaches b only.
	if _, isErr := callTool(t, b, "configure", map[string]any{"action": "streaming", "enabled": true, "throttle_seconds": 1}); isErr {
		t.Fatal("b enable")
	}
	// Only the keys given change.
	if out, _ := callTool(t, a, "configure", map[string]any{"action": "streaming", "enabled": false}); mustJSON(out) !=
		`{"enabled":false,"events":["network_errors","user_frustration"],"throttle_seconds":1,"url_filter":"app.test"}` {
		t.Fatalf("disable: %v", out)
	}
	serverError(t, base, "/api/orders")
	if n := nextEvent(t, toB); n["message"] != "Server error: POST /api/orders → 500" {
		t.Fatalf("b: %v", n)
	}
	// a's streamer, were it still on, fell due at the same moment as b's.
	select {
	case n := <-toA:
		t.Fatalf("a disabled streaming but got %v", n.Params.AdditionalFields)
	case n := <-toB:
		t.Fatalf("b got a second notification: %v", n.Params.AdditionalFields)
	case <-time.After(300 * time.Millisecond):
	}

	// Every configure call is audited with the agent's name, refused ones too.
	var lines []string
	for _, l := range readAudit(t, path) {
		if l["event"] != "configure_streaming" {
			continue
		}
		if e, refused := l["error"].(string); refused {
			lines = append(lines, l["agent"].(string)+" refused: "+e)
		} else {
			lines = append(lines, l["agent"].(string)+": "+l["result"].(string))
		}
	}
	const no = "claude-code refused: invalid_param: "
	want := []string{"claude-code: off", no + "throttle_seconds must be between 1 and 60",
		no + "throttle_seconds must be between 1 and 60", no + "throttle_seconds must be an integer",
		no + `events: "nope" is not one of errors, network_errors, performance, user_frustration, security`,
		no + "events must be a list of strings", no + "enabled must be true or false", no + "url_filter is longer than 500 characters",
		"claude-code: on: network_errors,user_frustration every 1s for URLs containing app.test",
		"cursor: on: errors,network_errors,performance,user_frustration,security every 1s", "claude-code: off"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit:\n%s", strings.Join(lines, "\n"))
	}
}

// A session that ends takes its streamer with it.
func TestStreamingEndsWithTheSession(t *testing.T) {
	s, _ := startServer(t)
	c := clientNamed(t, s, "short-lived")
	callTool(t, c, "configure", map[string]any{"action": "streaming", "enabled": true})
	if p := s.streams.live.Load(); p == nil || len(*p) != 1 {
		t.Fatalf("live streamers: %v", p)
	}
	c.Close()
	if p := s.streams.live.Load(); p != nil {
		t.Fatalf("streamer outlived its session: %d", len(*p))
	}
}

// The dashboard sees each notification, with the agent it went to.
func TestStreamedOnEventStream(t *testing.T) {
	s, base := startServer(t)
	c := clientNamed(t, s, "claude-code")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/events/stream?backlog=0", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", err, resp)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	r := sseReader{sc}
	r.next(t) // status: subscribed

	callTool(t, c, "configure", map[string]any{"action": "streaming", "enabled": true, "throttle_seconds": 1})
	serverError(t, base, "/api/users")
	data := r.until(t, "streamed", "Server error")
	if !strings.Contains(data, `"agent":"claude-code"`) || !strings.Contains(data, `"message":"Server error: POST /api/users → 500"`) {
		t.Fatalf("streamed: %s", data)
	}
}

// BenchmarkIngestWithStreaming measures storing network entries (one in ten
// a 5xx) with no session, and with three sessions, streaming.
func BenchmarkIngestWithStreaming(b *testing.B) {
	batch := make([]capture.NetworkEntry, 100)
	for i := range batch {
		batch[i] = capture.NetworkEntry{Method: "GET", URL: fmt.Sprintf("http://app.test/api/items/%d", i), Status: 200, Page: "http://app.test/"}
		if i%10 == 0 {
			batch[i].Status = 503
		}
	}
	for _, sessions := range []int{0, 3} {
		b.Run(fmt.Sprintf("sessions=%d", sessions), func(b *testing.B) {
			s := New(Config{Version: "bench"})
			b.Cleanup(func() { s.streams.end() })
			for i := range sessions {
				callTool(b, clientNamed(b, s, fmt.Sprint("agent-", i)), "configure", map[string]any{"action": "streaming", "enabled": true})
			}
			b.ReportAllocs()
			for b.Loop() {
				s.Store().AddNetwork(batch)
			}
			b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "entries/s")
		})
	}
}
