package server

import (
	"fmt"
	"testing"
)

// The extension reports the events its full buffer pushed out with its next
// batch, on any route; health adds them up. A batch the server refuses does
// not count: the extension tells it again with the next one.
func TestExtensionDropsReachHealth(t *testing.T) {
	s, base := startServer(t)
	ext := map[string]string{"Origin": ExtensionOrigin}
	for _, c := range []struct {
		path, body string
		want       int
	}{
		{"/logs", `{"entries":[{"level":"log","message":"a"}],"dropped":40}`, 200},
		{"/network", `{"entries":[{"url":"http://x.test/","method":"GET","status":200}],"dropped":2}`, 200},
		{"/actions", `{"actions":[],"dropped":1}`, 200},
		{"/logs", `{"entries":[{"level":"log","message":"b"}],"dropped":-5}`, 200},
		{"/logs", `{"entries":{},"dropped":1000}`, 400},
		{"/websocket-events", `{"dropped":1000}`, 400},
	} {
		if code, out := do(t, base, call{method: "POST", path: c.path, body: c.body, header: ext}); code != c.want {
			t.Fatalf("POST %s %s: %d %v, want %d", c.path, c.body, code, out, c.want)
		}
	}
	if got := s.Health().Extension.Dropped; got != 43 {
		t.Fatalf("health extension.dropped = %d, want 43", got)
	}
	_, h := do(t, base, call{method: "GET", path: "/health"})
	if got := fmt.Sprint(h["extension"].(map[string]any)["dropped"]); got != "43" {
		t.Fatalf("GET /health extension = %v", h["extension"])
	}
}
