package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// fakeWorker plays the extension's service worker on /ws/extension.
type fakeWorker struct {
	c       *websocket.Conn
	queries atomic.Int32
}

func connectWorker(t *testing.T, base string, answer func(q map[string]any) map[string]any) *fakeWorker {
	t.Helper()
	return connectWorkerHello(t, base, nil, answer)
}

// connectWorkerHello is connectWorker whose worker first says hello.
func connectWorkerHello(t *testing.T, base string, hello map[string]any, answer func(q map[string]any) map[string]any) *fakeWorker {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, _, err := websocket.Dial(ctx, strings.Replace(base, "http", "ws", 1)+"/ws/extension",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {ExtensionOrigin}}})
	if err != nil {
		t.Fatal(err)
	}
	if hello != nil {
		b, _ := json.Marshal(hello)
		c.Write(ctx, websocket.MessageText, b)
	}
	w := &fakeWorker{c: c}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			var q map[string]any
			json.Unmarshal(b, &q)
			if q["type"] != "query" {
				continue
			}
			w.queries.Add(1)
			if ans := answer(q); ans != nil {
				ans["type"], ans["id"] = "result", q["id"]
				out, _ := json.Marshal(ans)
				c.Write(ctx, websocket.MessageText, out)
			}
		}
	})
	t.Cleanup(func() { cancel(); c.CloseNow(); wg.Wait() })
	return w
}

func TestAnalyzeWithoutExtensionFailsFast(t *testing.T) {
	s, _ := startServer(t)
	c := mcpClient(t, s)
	for _, target := range []string{"dom", "page_info", "accessibility"} {
		t0 := time.Now()
		out, isErr := callTool(t, c, "analyze", map[string]any{"target": target, "selector": "body"})
		if !isErr || out["error"] != "extension_not_connected" || !strings.Contains(out["message"].(string), "human") {
			t.Fatalf("%s: %v", target, out)
		}
		if time.Since(t0) > time.Second {
			t.Fatalf("%s took %v", target, time.Since(t0))
		}
	}
}

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

func TestAnalyzeTimesOutAndHoldsNothing(t *testing.T) {
	s, base := startServer(t)
	w := connectWorker(t, base, func(map[string]any) map[string]any { return nil }) // a hung page
	waitReachable(t, s)
	_, err := s.queries.Ask(context.Background(), "dom", 0, nil, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "timeout") || w.queries.Load() != 1 {
		t.Fatalf("%v (queries seen %d)", err, w.queries.Load())
	}
	if s.queries.Held() != 0 {
		t.Fatalf("server holds %d queries", s.queries.Held())
	}
}

func waitReachableTick() { time.Sleep(5 * time.Millisecond) }

func waitReachable(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !s.queries.Reachable() {
		if time.Now().After(deadline) {
			t.Fatal("worker never attached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAccessibilityCacheProgressAndSARIF(t *testing.T) {
	s, base := startServer(t)
	do(t, base, call{method: "POST", path: "/page", body: `{"tab":3,"url":"http://app/","title":"App"}`})
	w := connectWorker(t, base, func(q map[string]any) map[string]any {
		return map[string]any{"tab": 3, "url": "http://app/", "result": map[string]any{
			"url": "http://app/", "summary": map[string]any{"violations": 1, "passes": 20},
			"violations": []any{map[string]any{"id": "image-alt", "impact": "critical", "help": "Images must have alternative text",
				"helpUrl": "https://dequeuniversity.com/rules/axe/4.14/image-alt", "nodeCount": 1,
				"nodes": []any{map[string]any{"selector": "img.hero", "html": "<img class=hero>"}}}}}}
	})
	waitReachable(t, s)

	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var notes []mcp.JSONRPCNotification
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		mu.Lock()
		notes = append(notes, n)
		mu.Unlock()
	})
	ctx := context.Background()
	c.Start(ctx)
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "a11y-agent"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	if out, isErr := callTool(t, c, "generate", map[string]any{"format": "sarif"}); !isErr || out["error"] != "not_found" {
		t.Fatalf("sarif before any audit: %v", out)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "analyze"
	req.Params.Arguments = map[string]any{"target": "accessibility"}
	req.Params.Meta = &mcp.Meta{ProgressToken: "tok-1"}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	// Notifications travel beside the response, not before it: await them.
	progressSeen := func() (n int) {
		mu.Lock()
		defer mu.Unlock()
		for _, note := range notes {
			if note.Method == "notifications/progress" && note.Params.AdditionalFields["progressToken"] == "tok-1" {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(5 * time.Second)
	for progressSeen() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("progress notifications: %d of %v", progressSeen(), notes)
		}
		time.Sleep(5 * time.Millisecond)
	}

	second, _ := callTool(t, c, "analyze", map[string]any{"target": "accessibility"})
	if second["cached"] != true || w.queries.Load() != 1 {
		t.Fatalf("second call not from cache: %v (queries %d)", second, w.queries.Load())
	}
	fresh, _ := callTool(t, c, "analyze", map[string]any{"target": "accessibility", "force_refresh": true})
	if fresh["cached"] != nil || w.queries.Load() != 2 {
		t.Fatalf("force_refresh served from cache: %v", fresh)
	}
	sar, isErr := callTool(t, c, "generate", map[string]any{"format": "sarif"})
	if isErr || sar["version"] != "2.1.0" || !strings.Contains(mustJSON(sar), "img.hero") {
		t.Fatalf("sarif: %v", sar)
	}
}

func TestPollingFallbackOverHTTP(t *testing.T) {
	s, base := startServer(t)
	ext := map[string]string{"Origin": ExtensionOrigin}
	do(t, base, call{method: "GET", path: "/pending-queries", header: ext}) // the worker is polling
	done := make(chan error, 1)
	go func() {
		_, err := s.queries.Ask(context.Background(), "page_info", 0, nil, 5*time.Second)
		done <- err
	}()
	var q []any
	for len(q) == 0 {
		_, out := do(t, base, call{method: "GET", path: "/pending-queries", header: ext})
		q, _ = out["queries"].([]any)
	}
	id := q[0].(map[string]any)["id"].(string)
	code, out := do(t, base, call{method: "POST", path: "/query-results", header: ext,
		body: `{"results":[{"id":"` + id + `","result":{"url":"http://x/"}},{"id":"q-unknown"}]}`})
	if code != 200 || out["accepted"] != float64(1) || out["dropped"] != float64(1) {
		t.Fatalf("%d %v", code, out)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
