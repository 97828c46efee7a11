package server

import (
	"strings"
	"testing"
)

func TestAnalyzeDOMThroughTheSocket(t *testing.T) {
	s, base := startServer(t)
	c := mcpClient(t, s)
	connectWorker(t, base, func(q map[string]any) map[string]any {
		p := q["params"].(map[string]any)
		if p["selector"] == "##" {
			return map[string]any{"error": map[string]any{"code": "invalid_param", "message": "'##' is not a valid selector."}}
		}
		matches := []map[string]any{}
		for range 60 {
			matches = append(matches, map[string]any{"tag": "li", "text": strings.Repeat("t", 600),
				"children": []any{map[string]any{"tag": "a", "children": []any{map[string]any{"tag": "b"}}}}})
		}
		return map[string]any{"tab": 3, "url": "http://app/", "result": map[string]any{"url": "http://app/", "matchCount": 61, "matches": matches}}
	})
	waitReachable(t, s)
	out, isErr := callTool(t, c, "analyze", map[string]any{"target": "dom", "selector": "li", "include_children": true, "max_depth": 1})
	if isErr || out["matchCount"] != float64(61) || out["returnedCount"] != float64(50) || out["tab"] != float64(3) {
		t.Fatalf("%v", mustJSON(out)[:300])
	}
	m := out["matches"].([]any)[0].(map[string]any)
	if len(m["text"].(string)) != 500 || m["textTruncated"] != true || strings.Contains(mustJSON(m), `"b"`) {
		t.Fatalf("limits not enforced: %v", mustJSON(m)[:200])
	}
	out, isErr = callTool(t, c, "analyze", map[string]any{"target": "dom", "selector": "##"})
	if !isErr || out["error"] != "invalid_param" || !strings.Contains(out["message"].(string), "not a valid selector") {
		t.Fatalf("bad selector: %v", out)
	}
	if out, isErr := callTool(t, c, "analyze", map[string]any{"target": "dom"}); !isErr || out["error"] != "invalid_param" {
		t.Fatalf("missing selector: %v", out)
	}
	if s.queries.Held() != 0 {
		t.Fatalf("server holds %d queries", s.queries.Held())
	}
}

// Issue 58 row 10: properties without include_styles (or with false,
// which a client may fill in for left out) asks the page for those styles.
func TestAnalyzeDOMPropertiesBringStyles(t *testing.T) {
	s, base := startServer(t)
	c := mcpClient(t, s)
	asked := make(chan map[string]any, 4)
	connectWorker(t, base, func(q map[string]any) map[string]any {
		asked <- q["params"].(map[string]any)
		return map[string]any{"tab": 3, "url": "http://app/", "result": map[string]any{"url": "http://app/", "matchCount": 0, "matches": []any{}}}
	})
	waitReachable(t, s)
	for _, a := range []map[string]any{
		{"target": "dom", "selector": "h1", "properties": []any{"background-color"}},
		{"target": "dom", "selector": "h1", "properties": []any{"background-color"}, "include_styles": false},
	} {
		if out, isErr := callTool(t, c, "analyze", a); isErr {
			t.Fatalf("%v", out)
		}
		if p := <-asked; p["include_styles"] != true || mustJSON(p["properties"]) != `["background-color"]` {
			t.Fatalf("%v asked the page %v", a, p)
		}
	}
}
