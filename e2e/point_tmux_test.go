//go:build e2e

package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The human points the AI at a failing request from the dashboard: in the
// Network pane of a real terminal, s on the request, a note, enter. A
// session that streams is notified with the URL, status, bodies and the
// note within a second; a session that does not finds it at the top of
// its next observe and in observe{what:"pointed"}; the header then says
// who read it.
func TestPointFromDashboardInTmux(t *testing.T) {
	port := freePort(t)
	dash := startDashboardSized(t, 120, 40, port, "point")
	dash.await(10*time.Second, "127.0.0.1:"+strconv.Itoa(port))
	streamer := mcpStdio(t, port, "streamer-agent")
	reader := mcpStdio(t, port, "reader-agent")
	notes := listen(t, streamer)
	configureStreaming(t, streamer, map[string]any{"enabled": true})

	site := fixtureServer(t)
	b := launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(port)))
	if err := chromedp.Do(b.ctx, chromedp.Navigate(site+"/capture.html")); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	dash.await(20*time.Second, "/capture.html")
	fail := `fetch("/api/fail?pointme=1", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({sku: 7})}); true`
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](fail)); err != nil {
		t.Fatalf("fetch: %v", err)
	}
	dash.keys("2")
	dash.await(20*time.Second, "/api/fail?pointme=1")
	// Its body, which the request's detail shows, has reached the server too.
	waitFor(t, 20*time.Second, "the request's bodies", func() bool {
		out, _, err := callTool(reader, "observe", map[string]any{"what": "network_bodies", "url_filter": "pointme"})
		return err == nil && strings.Contains(mustJSON(out), "db down")
	})
	dash.keys("/")
	dash.keys("-l", "pointme")
	dash.keys("Enter")
	dash.await(5*time.Second, `filter "pointme": 1`)
	dash.keys("s")
	dash.await(5*time.Second, "s note for the AI:")
	dash.keys("-l", "why does checkout fail?")
	dash.await(5*time.Second, "s note for the AI: why does checkout fail?")
	sent := time.Now()
	dash.keys("Enter")

	var pointed map[string]any
	var took time.Duration
	deadline := time.After(30 * time.Second)
	for pointed == nil {
		select {
		case r := <-notes:
			if r.params["category"] == "pointed" {
				pointed, took = r.params, r.at.Sub(sent)
			}
		case <-deadline:
			t.Fatalf("no pointed notification within 30 s; the screen:\n%s", dash.screen())
		}
	}
	t.Logf("the notification arrived %v after enter", took)
	got := mustJSON(pointed)
	for _, want := range []string{`"url":"` + site + `/api/fail?pointme=1"`, `"status":500`, `"request_body":"{\"sku\":7}"`,
		`"response_body":"{\"error\":\"db down\"}"`, `"note":"why does checkout fail?"`, `"kind":"network"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the notification lacks %s: %s", want, got)
		}
	}
	dash.await(10*time.Second, "sent to AI", "not read yet")

	out := observe(t, reader, map[string]any{"what": "errors"})
	lines, _ := out["human_pointed"].([]any)
	if len(lines) != 1 || !strings.HasPrefix(lines[0].(string), "the human pointed at: network POST "+site+"/api/fail?pointme=1 → 500") ||
		!strings.Contains(lines[0].(string), "why does checkout fail?") {
		t.Fatalf("the top of the next observe: %s", clipJSON(out, 2000))
	}
	if again := observe(t, reader, map[string]any{"what": "errors"}); again["human_pointed"] != nil {
		t.Fatalf("read twice: %s", clipJSON(again, 2000))
	}
	list := observe(t, reader, map[string]any{"what": "pointed"})
	es := entries(list)
	if len(es) != 1 || es[0]["note"] != "why does checkout fail?" || !strings.Contains(mustJSON(es[0]["entry"]), `"response_body":"{\"error\":\"db down\"}"`) {
		t.Fatalf("observe pointed: %s", clipJSON(list, 3000))
	}
	dash.await(10*time.Second, "read by reader-agent")
}
