package server

import (
	"strings"
	"testing"
)

func TestAnalyzeVerifyThroughMCP(t *testing.T) {
	s, base, path, _ := auditedServer(t)
	c := clientNamed(t, s, "verify-agent")
	post(t, base, "/logs", `{"entries":[{"level":"error","message":"TypeError: cart is undefined","page":"`+shopPage+`"}]}`)
	post(t, base, "/network", `{"entries":[{"method":"GET","url":"http://127.0.0.1:5000/api/cart","status":500,"duration_ms":4,"page":"`+shopPage+`"}]}`)

	start := mustCall(t, c, "analyze", map[string]any{"target": "verify", "action": "start", "name": "fix-cart"})
	id, _ := start["session_id"].(string)
	if id == "" || !containsAll(mustJSON(start), `"console_errors":1`, `"network_errors":1`) {
		t.Fatalf("start: %v", start)
	}
	wantProblem(t, c, "analyze", map[string]any{"target": "verify", "action": "compare", "session_id": id}, "invalid_param", "watch")
	mustCall(t, c, "analyze", map[string]any{"target": "verify", "action": "watch", "session_id": id})
	post(t, base, "/network", `{"entries":[{"method":"GET","url":"http://127.0.0.1:5000/api/cart","status":200,"duration_ms":4,"page":"`+shopPage+`"}]}`)
	cmp := mustCall(t, c, "analyze", map[string]any{"target": "verify", "action": "compare", "session_id": id})
	if !containsAll(mustJSON(cmp), `"verdict":"fixed"`, `"type":"resolved"`, "cart is undefined") {
		t.Fatalf("compare: %v", cmp)
	}
	if st := mustCall(t, c, "analyze", map[string]any{"target": "verify", "action": "status", "session_id": id}); st["verdict"] != "fixed" || st["label"] != "fix-cart" {
		t.Errorf("status: %v", st)
	}
	mustCall(t, c, "analyze", map[string]any{"target": "verify", "action": "cancel", "session_id": id})
	wantProblem(t, c, "analyze", map[string]any{"target": "verify", "action": "status", "session_id": id}, "not_found", id)
	wantProblem(t, c, "analyze", map[string]any{"target": "verify", "action": "watch"}, "invalid_param", "session_id")
	wantProblem(t, c, "analyze", map[string]any{"target": "verify", "action": "redo"}, "invalid_param", "start, watch, compare")
	wantProblem(t, c, "analyze", map[string]any{"target": "verify", "action": "start", "session_id": 7}, "invalid_param", "session_id must be a string")

	lines := auditOf(t, path, "verify")
	if len(lines) != 9 {
		t.Fatalf("verify audit lines: %v", lines)
	}
	if l := lines[3]; l["action"] != "verify compare" || !strings.Contains(l["result"].(string), "fixed") || l["agent"] != "verify-agent" {
		t.Errorf("compare's audit line: %v", l)
	}
}
