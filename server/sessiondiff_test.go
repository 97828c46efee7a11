package server

import (
	"strings"
	"testing"
)

func TestAnalyzeDiffThroughMCP(t *testing.T) {
	s, base, path, _ := auditedServer(t)
	c := clientNamed(t, s, "diff-agent")
	post(t, base, "/network", `{"entries":[{"method":"GET","url":"http://127.0.0.1:5000/api/list","status":200,"duration_ms":40,"page":"`+shopPage+`"}]}`)
	mustCall(t, c, "analyze", map[string]any{"target": "diff", "action": "capture", "name": "fast"})
	post(t, base, "/network", `{"entries":[{"method":"GET","url":"http://127.0.0.1:5000/api/list","status":200,"duration_ms":900,"page":"`+shopPage+`"}]}`)
	post(t, base, "/logs", `{"entries":[{"level":"error","message":"Timeout loading list","page":"`+shopPage+`"}]}`)
	mustCall(t, c, "analyze", map[string]any{"target": "diff", "action": "capture", "name": "slow"})

	cmp := mustJSON(mustCall(t, c, "analyze", map[string]any{"target": "diff", "action": "compare", "name": "fast", "compare_b": "slow"}))
	if !containsAll(cmp, `"verdict":"regressed"`, `"new_errors":1`, "Timeout loading list", `"duration_change":"+`) {
		t.Errorf("compare: %s", cmp)
	}
	if cur := mustJSON(mustCall(t, c, "analyze", map[string]any{"target": "diff", "action": "compare", "name": "slow"})); !strings.Contains(cur, `"b":"current"`) {
		t.Errorf("compare with current: %s", cur)
	}
	if l := mustJSON(mustCall(t, c, "analyze", map[string]any{"target": "diff", "action": "list"})); !containsAll(l, `"fast"`, `"slow"`) {
		t.Errorf("list: %s", l)
	}
	mustCall(t, c, "analyze", map[string]any{"target": "diff", "action": "delete", "name": "fast"})
	wantProblem(t, c, "analyze", map[string]any{"target": "diff", "action": "compare", "name": "fast"}, "not_found", "fast")
	wantProblem(t, c, "analyze", map[string]any{"target": "diff", "action": "capture", "name": "current"}, "invalid_param", "reserved")
	wantProblem(t, c, "analyze", map[string]any{"target": "diff", "action": "capture", "name": strings.Repeat("x", 51)}, "invalid_param", "limit is 50")

	lines := auditOf(t, path, "diff")
	if len(lines) != 9 || lines[2]["action"] != "diff compare" || !strings.Contains(lines[2]["result"].(string), "regressed") {
		t.Errorf("diff audit lines: %v", lines)
	}
}
