package server

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

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
	eventually(t, "two progress notifications", func() bool { return progressSeen() >= 2 })

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
