package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

func TestGenerateTestAndHAR(t *testing.T) {
	dir := t.TempDir()
	s := New(Config{Version: "test", HARDir: filepath.Join(dir, "har")})
	c := mcpClient(t, s)

	for _, f := range []string{"test", "har"} {
		if out, isErr := callTool(t, c, "generate", map[string]any{"format": f}); !isErr || out["error"] != "not_found" {
			t.Fatalf("%s with nothing captured: %v", f, out)
		}
	}
	for _, bad := range []map[string]any{
		{"format": "test", "mock_api": "yes"},
		{"format": "test", "name": 7},
		{"format": "har", "url_filter": []any{"x"}},
		{"format": "pdf"},
	} {
		if out, isErr := callTool(t, c, "generate", bad); !isErr || out["error"] != "invalid_param" {
			t.Errorf("generate %v: %v", bad, out)
		}
	}

	now := time.Now()
	at := func(ms int) capture.Time { return capture.Time{Time: now.Add(time.Duration(ms) * time.Millisecond)} }
	page := "http://app.test/form"
	s.store.AddActions([]capture.Action{
		{TS: at(0), Type: "navigation", URL: page, Page: page},
		{TS: at(100), Type: "input", Selector: "#q", Value: "gas", Page: page},
		{TS: at(200), Type: "click", Selector: "#go", Text: "Search", Page: page},
	})
	s.store.AddNetwork([]capture.NetworkEntry{
		{TS: at(250), Method: "GET", URL: "http://app.test/api/search?q=gas", Status: 200, DurationMS: 12, Type: "fetch", Page: page},
	})
	s.store.AddBodies([]capture.NetworkBody{
		{TS: at(251), Method: "GET", URL: "http://app.test/api/search?q=gas", Status: 200, ContentType: "application/json",
			ResponseBody: `{"results":["gasoline"]}`, Page: page},
	})

	out, isErr := callTool(t, c, "generate", map[string]any{"format": "test", "name": "search flow", "mock_api": true})
	script, _ := out["script"].(string)
	if isErr || !strings.Contains(script, "search flow") || !strings.Contains(script, "page.route") ||
		!strings.Contains(script, "#q") || out["steps"] == nil || out["filename"] == nil {
		t.Fatalf("generate test: %v", out)
	}

	out, isErr = callTool(t, c, "generate", map[string]any{"format": "har"})
	path, _ := out["path"].(string)
	if isErr || out["entries"] != float64(1) || out["har"] == nil || !strings.HasPrefix(path, filepath.Join(dir, "har")) {
		t.Fatalf("generate har: %v", out)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), `"version":"1.2"`) || !strings.Contains(string(b), "gasoline") {
		t.Fatalf("har file: %v %s", err, b)
	}
	if out, isErr := callTool(t, c, "generate", map[string]any{"format": "har", "url_filter": "nomatch"}); !isErr || out["error"] != "not_found" {
		t.Fatalf("har url_filter: %v", out)
	}
}

// generate{format:"test"} replays the human's actions; the AI's own only
// with include_ai, and says so when they were all it had.
func TestGenerateTestLeavesTheAIsActions(t *testing.T) {
	s := New(Config{Version: "test"})
	c := mcpClient(t, s)
	now := time.Now()
	page := "http://app.test/shop"
	s.store.AddActions([]capture.Action{
		{TS: capture.Time{Time: now}, Type: "navigation", URL: page, Page: page, Source: "ai"},
		{TS: capture.Time{Time: now.Add(time.Second)}, Type: "click", Selector: "#buy", Text: "Buy", Page: page, Source: "ai"},
	})
	out, isErr := callTool(t, c, "generate", map[string]any{"format": "test"})
	if !isErr || out["error"] != "not_found" || !strings.Contains(out["message"].(string), "include_ai:true") {
		t.Fatalf("only the AI's actions: %v", out)
	}
	out, isErr = callTool(t, c, "generate", map[string]any{"format": "test", "include_ai": true})
	if script, _ := out["script"].(string); isErr || !strings.Contains(script, "page.locator('#buy').click()") {
		t.Fatalf("include_ai: %v", out)
	}
	if out, isErr := callTool(t, c, "generate", map[string]any{"format": "test", "include_ai": "yes"}); !isErr || out["error"] != "invalid_param" {
		t.Fatalf("include_ai yes: %v", out)
	}
}
