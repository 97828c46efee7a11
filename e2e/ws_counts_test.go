//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Issue 58 row 12: in ws_mode lifecycle, websocket_status after three
// messages does not give "messages_in":0 as a count: the socket says its
// messages are not counted in that mode.
func TestWebSocketStatusInLifecycleMode(t *testing.T) {
	r := newRig(t, "ws-lifecycle-agent", map[string]any{"ws_mode": "lifecycle"})
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/capture.html")); err != nil {
		t.Fatal(err)
	}
	js := `(() => { const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws?mine');
		ws.onopen = () => { for (const m of ['a', 'b', 'c']) ws.send(m); }; window.__ws = ws; return true; })()`
	if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](js)); err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	defer func() {
		if t.Failed() {
			t.Logf("last websocket_status: %s", mustJSON(st))
		}
	}()
	var c map[string]any // the page's own sockets aside
	waitFor(t, 20*time.Second, "the socket's status", func() bool {
		st = observe(t, r.ai, map[string]any{"what": "websocket_status"})
		c = find(entriesOf(st, "connections"), "url", strings.Replace(r.site, "http", "ws", 1)+"/ws?mine")
		return c != nil
	})
	if m, _ := c["messages"].(string); !strings.HasPrefix(m, "not counted: ws_mode is lifecycle") {
		t.Fatalf("websocket_status: %s", mustJSON(st))
	}
}

// entriesOf is a result's list under key.
func entriesOf(res map[string]any, key string) []map[string]any {
	list, _ := res[key].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
