package server

import (
	"strings"
	"testing"
)

// Issue 58 row 9: the page's count of console calls log_level left out
// reaches observe logs as "filtered", with the setting, and is never a
// console entry; a clear of the logs starts it again.
func TestObserveLogsSaysWhatLogLevelLeftOut(t *testing.T) {
	s, base := startServer(t)
	ai := mcpClient(t, s)
	if out, _ := callTool(t, ai, "observe", map[string]any{"what": "logs"}); out["filtered"] != nil {
		t.Fatalf("nothing left out yet: %v", out)
	}
	post(t, base, "/logs", `{"entries":[{"ts":1700000000000,"level":"error","message":"boom","dc":"d1","sq":1},
		{"ts":1700000000001,"level":"debug","kind":"filtered","message":"error","filtered":{"warn":2,"log":1,"bogus":5},"dc":"d1","sq":2},
		{"ts":1700000000002,"level":"debug","kind":"filtered","message":"error","filtered":{"warn":1},"dc":"d1","sq":3}]}`)
	out, _ := callTool(t, ai, "observe", map[string]any{"what": "logs"})
	if got := mustJSON(out["filtered"]); got != `{"log":1,"log_level":"error","warn":3}` || out["count"] != 1.0 {
		t.Fatalf("observe logs: %s", mustJSON(out))
	}
	if h := mustJSON(s.Health()); strings.Contains(h, `"lost"`) {
		t.Errorf("the reports' sequence numbers made a loss: %s", h)
	}
	callTool(t, ai, "configure", map[string]any{"action": "clear", "buffer": "logs"})
	if out, _ := callTool(t, ai, "observe", map[string]any{"what": "logs"}); out["filtered"] != nil {
		t.Fatalf("after clear: %v", out)
	}
}
