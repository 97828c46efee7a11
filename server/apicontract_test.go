package server

import (
	"strings"
	"testing"
)

func TestAnalyzeAPIContractThroughMCP(t *testing.T) {
	s, base, path, _ := auditedServer(t)
	c := clientNamed(t, s, "api-agent")
	product := func(price string) string {
		return `{"method":"GET","url":"http://127.0.0.1:5000/api/products?page=1","status":200,"content_type":"application/json","response_body":"[{\"id\":1,\"name\":\"Lamp\",\"price\":` + price + `}]"}`
	}
	for range 4 {
		post(t, base, "/network-bodies", `{"bodies":[`+product("12.5")+`]}`)
	}
	// The tracker learned from ingest, not from the bodies buffer.
	mustCall(t, c, "configure", map[string]any{"action": "clear", "buffer": "network_bodies"})
	post(t, base, "/network-bodies", `{"bodies":[`+product(`\"12.50\"`)+`]}`)

	a := mustCall(t, c, "analyze", map[string]any{"target": "api"})
	text := mustJSON(a)
	if !containsAll(text, `"endpoint":"GET /api/products"`, `"type":"type_change"`, `"expected":"number"`, `"actual":"string"`, "price") || strings.Contains(text, "Lamp") {
		t.Fatalf("analyze api: %s", text)
	}
	rep := mustJSON(mustCall(t, c, "analyze", map[string]any{"target": "api", "action": "report"}))
	if !containsAll(rep, `"call_count":5`, `"price"`) || strings.Contains(rep, ":12.5") || strings.Contains(rep, `"12.50"`) {
		t.Errorf("report: %s", rep)
	}
	if ign := mustCall(t, c, "analyze", map[string]any{"target": "api", "ignore_endpoints": []any{"/api/products"}}); len(ign["endpoints"].([]any)) != 0 {
		t.Errorf("ignore_endpoints: %v", ign)
	}
	wantProblem(t, c, "analyze", map[string]any{"target": "api", "action": "clear"}, "invalid_param", "api_shapes")

	cl := mustCall(t, c, "configure", map[string]any{"action": "clear", "buffer": "api_shapes"})
	if cl["cleared"] != "api_shapes" {
		t.Errorf("clear: %v", cl)
	}
	if after := mustCall(t, c, "analyze", map[string]any{"target": "api"}); after["tracked_endpoints"] != float64(0) {
		t.Errorf("after clear: %v", after)
	}
	lines := auditOf(t, path, "api")
	if len(lines) != 5 || lines[1]["action"] != "api report" || !strings.Contains(lines[1]["result"].(string), "1 endpoints") {
		t.Errorf("api audit lines: %v", lines)
	}
}
