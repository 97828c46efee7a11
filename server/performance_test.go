package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
)

// POST /performance stores each sample with its URL scrubbed, and rejects
// only the sample no browser could have measured.
func TestPerformanceIngest(t *testing.T) {
	s, base := startServer(t)
	body := `{"entries":[
		{"ts":1763800000000,"url":"http://ada:SECRET1@app.test/home?token=SECRET1","tab":3,"ttfb":40,"load_time":300,"fcp":120,"cls":0,
		 "long_tasks":1,"total_blocking_time":20,"longest_task":70,"request_count":4,"transfer_size":5000,
		 "by_type":{"script":{"count":2,"transfer_size":4000}},"page":"http://app.test/home"},
		{"url":"http://app.test/bad","load_time":-5}
	]}`
	code, out := do(t, base, call{method: "POST", path: "/performance", body: body})
	if code != 200 || out["accepted"] != float64(1) || !strings.Contains(mustJSON(out["rejected"]), `"index":1`) {
		t.Fatalf("%d %v", code, out)
	}
	pages := s.Perf().Snapshots("", 0)
	if len(pages) != 1 || pages[0].LoadTime != 300 || pages[0].ByType["script"].Count != 2 || pages[0].CLS == nil {
		t.Fatalf("stored %+v", pages)
	}
	if strings.Contains(mustJSON(pages), "SECRET1") {
		t.Fatalf("secret stored: %s", mustJSON(pages))
	}
	if code, _ := do(t, base, call{method: "POST", path: "/performance", body: `{"samples":[]}`}); code != 400 {
		t.Fatalf("wrong key: %d", code)
	}
}

func load(url string, ms float64) perf.Sample {
	return perf.Sample{TS: capture.Time{Time: time.Now()}, URL: url, TTFB: 20, LoadTime: ms, FCP: ms / 2, RequestCount: 3}
}

func TestPerformanceModes(t *testing.T) {
	dir := t.TempDir()
	s := New(Config{Version: "test", AuditLog: filepath.Join(dir, "audit.jsonl")})
	c := mcpClient(t, s)

	out, isErr := callTool(t, c, "analyze", map[string]any{"target": "performance"})
	if isErr || out["verdict"] != perf.NoData {
		t.Fatalf("empty analyze: %v", out)
	}
	out, isErr = callTool(t, c, "observe", map[string]any{"what": "performance"})
	if isErr || out["count"] != float64(0) || out["pages"] != nil {
		t.Fatalf("empty observe: %v", out)
	}

	for range 5 {
		if _, err := s.Perf().Add(load("http://app.test/slow", 300)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"a", "b", "c"} {
		if _, err := s.Perf().Add(load("http://app.test/"+p, 100)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Perf().Add(load("http://app.test/slow", 1500)); err != nil {
		t.Fatal(err)
	}

	out, isErr = callTool(t, c, "observe", map[string]any{"what": "performance", "limit": 2})
	pages, _ := out["pages"].([]any)
	if isErr || out["count"] != float64(2) || len(pages) != 2 || !strings.Contains(mustJSON(pages[0]), `"url":"http://app.test/slow"`) {
		t.Fatalf("observe newest first, limited: %v", out)
	}
	out, _ = callTool(t, c, "observe", map[string]any{"what": "performance", "url_filter": "/b"})
	if out["count"] != float64(1) {
		t.Fatalf("observe url_filter: %v", out)
	}

	out, isErr = callTool(t, c, "analyze", map[string]any{"target": "performance", "url_filter": "slow"})
	if isErr || out["verdict"] != perf.Regressed || !strings.Contains(mustJSON(out["pages"]), "load_time") || out["report"] == "" {
		t.Fatalf("regression not flagged: %v", out)
	}
	out, _ = callTool(t, c, "analyze", map[string]any{"target": "performance", "url_filter": "test/a"})
	if out["verdict"] == perf.Regressed {
		t.Fatalf("steady page flagged: %v", out)
	}

	for _, bad := range []map[string]any{
		{"what": "performance", "limit": 0},
		{"what": "performance", "url_filter": 5},
	} {
		if out, isErr := callTool(t, c, "observe", bad); !isErr || out["error"] != "invalid_param" {
			t.Errorf("observe %v: %v", bad, out)
		}
	}
	if out, isErr := callTool(t, c, "analyze", map[string]any{"target": "performance", "url_filter": true}); !isErr || out["error"] != "invalid_param" {
		t.Errorf("analyze bad url_filter: %v", out)
	}

	s.auditor.Close()
	b, err := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"action":"performance","result":"regressed, 1 pages"`) ||
		!strings.Contains(string(b), `"event":"observe"`) {
		t.Fatalf("audit log:\n%s", b)
	}
}

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
