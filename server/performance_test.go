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

	s.trail.log.Close()
	b, err := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"action":"performance","result":"regressed, 1 pages"`) ||
		!strings.Contains(string(b), `"event":"observe"`) {
		t.Fatalf("audit log:\n%s", b)
	}
}
