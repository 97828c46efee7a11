package server

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

var update = flag.Bool("update", false, "rewrite golden files")

func mcpClient(t testing.TB, s *Server) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test-agent", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// callTool returns the tool's JSON result and whether it was an error.
func callTool(t testing.TB, c *client.Client, name string, arguments map[string]any) (map[string]any, bool) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = arguments
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s %v: %v", name, arguments, err)
	}
	text := res.Content[0].(mcp.TextContent).Text
	var out map[string]any
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("%s: result is not JSON: %s", name, text)
	}
	return out, res.IsError
}

func TestToolsListGolden(t *testing.T) {
	s := New(Config{Version: "test"})
	c := mcpClient(t, s)
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.MarshalIndent(res.Tools, "", "  ")
	const golden = "../testdata/tools_list.golden.json"
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./server -run Golden -update)", err)
	}
	if strings.TrimSpace(string(got)) != strings.TrimSpace(string(want)) {
		t.Fatalf("tools/list changed; if intended, run go test ./server -run Golden -update\n%s", got)
	}
	compact, _ := json.Marshal(res)
	t.Logf("tools/list: %d tools, %d bytes", len(res.Tools), len(compact))
	// What every AI client reads into its context before its first call.
	const most = 8000
	if len(compact) > most {
		t.Fatalf("tools/list is %d bytes, more than %d", len(compact), most)
	}
}

func TestObserveModes(t *testing.T) {
	s, base := startServer(t)
	c := mcpClient(t, s)
	post := func(path, body string) {
		if code, out := do(t, base, call{method: "POST", path: path, body: body, header: map[string]string{"Origin": ExtensionOrigin}}); code != 200 {
			t.Fatalf("%s: %d %v", path, code, out)
		}
	}
	post("/page", `{"tab":7,"url":"http://app.test/","title":"App","active":true}`)
	post("/logs", `{"entries":[
		{"ts":1700000000000,"level":"log","message":"hello","args":["{\"a\":1}"],"tab":7,"page":"http://app.test/"},
		{"ts":1700000000001,"level":"error","kind":"exception","message":"boom","stack":"at f (app.js:1:2)","source":"http://app.test/app.js:1:2","tab":7,"page":"http://app.test/"}]}`)
	post("/network", `{"entries":[
		{"method":"GET","url":"http://app.test/api/ok","status":200,"duration_ms":12.5,"type":"fetch","tab":7,"page":"http://app.test/"},
		{"method":"POST","url":"http://app.test/api/fail","status":500,"duration_ms":3,"type":"xhr","tab":7,"page":"http://app.test/"}]}`)
	post("/network-bodies", `{"bodies":[{"method":"POST","url":"http://app.test/api/fail","status":500,"request_body":"{}","response_body":"{\"error\":\"db\"}","request_headers":{"Authorization":"Bearer x","Accept":"*/*"},"tab":7,"page":"http://app.test/"}]}`)
	post("/websocket-events", `{"events":[{"event":"open","id":"c1","url":"ws://app.test/ws","tab":7},{"event":"message","id":"c1","direction":"outgoing","data":"ping","tab":7},{"event":"message","id":"c1","direction":"incoming","data":"pong","tab":7}]}`)
	post("/actions", `{"actions":[{"type":"click","selector":"#go","text":"Go","tab":7,"page":"http://app.test/"},{"type":"input","selector":"#pw","input_type":"password","value":"hunter2","tab":7,"page":"http://app.test/"}]}`)

	logs, isErr := callTool(t, c, "observe", map[string]any{"what": "logs", "level": "log"})
	if isErr || logs["count"] != float64(2) || logs["page"] != "http://app.test/" || logs["tab"] != float64(7) {
		t.Fatalf("logs: %v", logs)
	}
	first := logs["entries"].([]any)[0].(map[string]any)
	if first["message"] != "boom" || first["kind"] != "exception" || first["page"] != nil || first["ts"] != "2023-11-14T22:13:20.001Z" {
		t.Fatalf("newest log: %v", first)
	}
	errs, _ := callTool(t, c, "observe", map[string]any{"what": "errors"})
	if errs["count"] != float64(1) {
		t.Fatalf("errors: %v", errs)
	}
	fails, _ := callTool(t, c, "observe", map[string]any{"what": "network", "status_min": 500})
	if fails["count"] != float64(1) || fails["entries"].([]any)[0].(map[string]any)["type"] != "xhr" {
		t.Fatalf("network: %v", fails)
	}
	bodies, _ := callTool(t, c, "observe", map[string]any{"what": "network_bodies", "url_filter": "/api/fail", "method": "post"})
	b := bodies["entries"].([]any)[0].(map[string]any)
	if b["response_body"] != `{"error":"db"}` || strings.Contains(mustJSON(b), "Bearer") {
		t.Fatalf("bodies: %v", b)
	}
	ws, _ := callTool(t, c, "observe", map[string]any{"what": "websocket_events", "direction": "incoming"})
	if ws["count"] != float64(1) || ws["entries"].([]any)[0].(map[string]any)["data"] != "pong" {
		t.Fatalf("ws: %v", ws)
	}
	st, _ := callTool(t, c, "observe", map[string]any{"what": "websocket_status"})
	conn := st["connections"].([]any)[0].(map[string]any)
	if conn["state"] != "open" || conn["messages_in"] != float64(1) || conn["messages_out"] != float64(1) {
		t.Fatalf("ws status: %v", st)
	}
	acts, _ := callTool(t, c, "observe", map[string]any{"what": "actions"})
	if strings.Contains(mustJSON(acts), "hunter2") || acts["count"] != float64(2) {
		t.Fatalf("actions: %v", acts)
	}
	pg, _ := callTool(t, c, "observe", map[string]any{"what": "page"})
	if pg["url"] != "http://app.test/" || pg["title"] != "App" || pg["tab"] != float64(7) || pg["extension_connected"] != true {
		t.Fatalf("page: %v", pg)
	}
	h, _ := callTool(t, c, "observe", map[string]any{"what": "health"})
	if h["service"] != "gasoline" || h["buffers"].(map[string]any)["logs"].(map[string]any)["count"] != float64(2) {
		t.Fatalf("health: %v", h)
	}

	// The cursor hands back only what is new.
	post("/logs", `{"entries":[{"level":"warn","message":"later"}]}`)
	again, _ := callTool(t, c, "observe", map[string]any{"what": "logs", "after": logs["cursor"]})
	if again["count"] != float64(1) || again["entries"].([]any)[0].(map[string]any)["message"] != "later" {
		t.Fatalf("after cursor: %v", again)
	}
}

func TestObserveBadParamsAreToolErrors(t *testing.T) {
	s := New(Config{Version: "test"})
	c := mcpClient(t, s)
	cases := []struct {
		args map[string]any
		msg  string
	}{
		{map[string]any{}, "what is required"},
		{map[string]any{"what": "dom"}, `"dom" is not one of`},
		{map[string]any{"what": "logs", "limit": "ten"}, "limit must be an integer"},
		{map[string]any{"what": "logs", "limit": 0}, "between 1 and 500"},
		{map[string]any{"what": "network", "status_min": 500, "status_max": 400}, "above status_max"},
		{map[string]any{"what": "websocket_events", "direction": "sideways"}, "incoming, outgoing"},
		{map[string]any{"what": "logs", "after": -1}, "cursor"},
	}
	for _, tc := range cases {
		out, isErr := callTool(t, c, "observe", tc.args)
		if !isErr || out["error"] != "invalid_param" || !strings.Contains(out["message"].(string), tc.msg) {
			t.Errorf("%v: isError=%v %v", tc.args, isErr, out)
		}
	}
	if out, _ := callTool(t, c, "observe", map[string]any{"what": "page"}); out["tracked"] != false {
		t.Errorf("page before any tab: %v", out)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
