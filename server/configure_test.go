package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// testClock is a settable clock, so tests step past the 1 s rate limit
// instead of waiting for it.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// auditedServer runs a real server whose audit log is in a temp dir and
// whose capture control runs on a test clock.
func auditedServer(t *testing.T) (*Server, string, string, *testClock) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	ck := &testClock{t: time.Date(2026, 1, 24, 15, 32, 0, 0, time.UTC)}
	s, base := startServerWith(t, Config{Version: "test", AuditLog: path, ScreenshotDir: filepath.Join(t.TempDir(), "shots"), Clock: ck.now})
	return s, base, path, ck
}

// asHuman is the header the dashboard sends on the human's API.
func asHuman(s *Server) map[string]string { return map[string]string{TokenHeader: s.HumanToken()} }

func clientNamed(t testing.TB, s *Server, name string) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c.Start(ctx)
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: name}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func readAudit(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, _ := os.ReadFile(path)
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// Spec scenarios 1, 2, 7, 8, 16, 19 and 20 through MCP and HTTP.
func TestConfigureCaptureEndToEnd(t *testing.T) {
	s, base, path, clock := auditedServer(t)
	a, b := clientNamed(t, s, "claude-code"), clientNamed(t, s, "cursor")
	ext := map[string]string{"Origin": ExtensionOrigin}

	// The extension's socket gets the change pushed at once.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(base, "http", "ws", 1)+"/ws/extension",
		&websocket.DialOptions{HTTPHeader: map[string][]string{"Origin": {ExtensionOrigin}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if _, hello, err := ws.Read(ctx); err != nil || !strings.Contains(string(hello), `"type":"hello"`) {
		t.Fatalf("the server's first frame: %v %s", err, hello)
	}
	waitReachable(t, s)

	out, isErr := callTool(t, a, "configure", map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages", "log_level": "all"}})
	if isErr || !strings.Contains(mustJSON(out["changed"]), `"from":"lifecycle","setting":"ws_mode","to":"messages"`) {
		t.Fatalf("configure: %v", out)
	}
	_, pushed, err := ws.Read(ctx)
	if err != nil || !strings.Contains(string(pushed), `"type":"settings"`) || !strings.Contains(string(pushed), `"ws_mode":"messages"`) {
		t.Fatalf("push: %v %s", err, pushed)
	}
	_, settings := do(t, base, call{method: "GET", path: "/settings", header: ext})
	if mustJSON(settings["capture_overrides"]) != `{"log_level":"all","ws_mode":"messages"}` {
		t.Fatalf("/settings: %v", settings)
	}
	// Scenario 16: a reconnecting extension gets the same overrides.
	ws.CloseNow()
	_, again := do(t, base, call{method: "GET", path: "/settings", header: ext})
	if mustJSON(again["capture_overrides"]) != mustJSON(settings["capture_overrides"]) {
		t.Fatalf("after reconnect: %v", again)
	}

	// Alerts ride along once with the next observe, whatever it reads.
	obs, _ := callTool(t, a, "observe", map[string]any{"what": "errors"})
	alerts := mustJSON(obs["alerts"])
	if !strings.Contains(alerts, "AI changed ws_mode: lifecycle → messages") || !strings.Contains(alerts, `"type":"capture_override"`) {
		t.Fatalf("alerts: %v", obs)
	}
	if obs2, _ := callTool(t, a, "observe", map[string]any{"what": "errors"}); obs2["alerts"] != nil {
		t.Fatalf("alerts delivered twice: %v", obs2)
	}
	// The other agent learns of the change too, once.
	if obsB, _ := callTool(t, b, "observe", map[string]any{"what": "logs"}); !strings.Contains(mustJSON(obsB["alerts"]), "AI changed ws_mode") {
		t.Fatalf("second agent not told: %v", obsB)
	}
	if obsB2, _ := callTool(t, b, "observe", map[string]any{"what": "logs"}); obsB2["alerts"] != nil {
		t.Fatalf("second agent told twice: %v", obsB2)
	}
	// An agent that joins later is not told about what happened before it.
	late := clientNamed(t, s, "late-agent")
	if obsL, _ := callTool(t, late, "observe", map[string]any{"what": "logs"}); obsL["alerts"] != nil {
		t.Fatalf("late agent got old alerts: %v", obsL)
	}
	page, _ := callTool(t, a, "observe", map[string]any{"what": "page"})
	ov := page["capture_overrides"].(map[string]any)["ws_mode"].(map[string]any)
	if ov["value"] != "messages" || ov["default"] != "lifecycle" || ov["changed_at"] == nil {
		t.Fatalf("page overrides: %v", page)
	}

	// Rate limit, then a second agent after a second.
	if out, isErr := callTool(t, b, "configure", map[string]any{"action": "capture", "settings": map[string]any{"network_bodies": false}}); !isErr || out["error"] != "rate_limited" {
		t.Fatalf("rate limit: %v", out)
	}
	clock.advance(time.Second)
	if _, isErr := callTool(t, b, "configure", map[string]any{"action": "capture", "settings": map[string]any{"network_bodies": false}}); isErr {
		t.Fatal("second agent refused after the interval")
	}
	agents := map[string]bool{}
	for _, l := range readAudit(t, path) {
		agents[l["agent"].(string)] = true
	}
	if !agents["claude-code"] || !agents["cursor"] {
		t.Fatalf("audit agents: %v", agents)
	}

	// Bad input: clear errors.
	for _, bad := range []any{"resett", 42, map[string]any{"foo": 1}, map[string]any{"log_level": "verbose"}} {
		if out, isErr := callTool(t, a, "configure", map[string]any{"action": "capture", "settings": bad}); !isErr || out["error"] != "invalid_param" {
			t.Errorf("%v: %v", bad, out)
		}
	}
}

func TestHumanVetoAPI(t *testing.T) {
	s, base, path, clock := auditedServer(t)
	ai := clientNamed(t, s, "claude-code")
	if _, isErr := callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages"}}); isErr {
		t.Fatal("configure failed")
	}
	callTool(t, ai, "observe", map[string]any{"what": "health"}) // drain the change alert

	_, list := do(t, base, call{method: "GET", path: "/api/overrides"})
	if !strings.Contains(mustJSON(list), `{"agent":"claude-code","changed_at":`) || !strings.Contains(mustJSON(list), `"default":"lifecycle","name":"ws_mode","value":"messages"}`) {
		t.Fatalf("list: %v", list)
	}
	code, out := do(t, base, call{method: "POST", path: "/api/overrides/revoke", body: `{"setting":"ws_mode"}`, header: asHuman(s)})
	if code != 200 || mustJSON(out["revoked"]) != `["ws_mode"]` {
		t.Fatalf("revoke: %d %v", code, out)
	}
	if _, st := do(t, base, call{method: "GET", path: "/settings"}); mustJSON(st["capture_overrides"]) != `{}` {
		t.Fatalf("settings after revoke: %v", st)
	}
	clock.advance(time.Second) // past the AI's rate limit, so only the veto can refuse
	res, isErr := callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages"}})
	if !isErr || res["error"] != "revoked_by_user" || !strings.Contains(res["message"].(string), "Ask them") {
		t.Fatalf("configure after revoke: %v", res)
	}
	obs, _ := callTool(t, ai, "observe", map[string]any{"what": "logs"})
	if !strings.Contains(mustJSON(obs["alerts"]), `"type":"capture_revoked"`) {
		t.Fatalf("no revocation alert: %v", obs)
	}
	if code, out := do(t, base, call{method: "POST", path: "/api/overrides/allow", body: `{"setting":"ws_mode"}`, header: asHuman(s)}); code != 200 {
		t.Fatalf("allow: %d %v", code, out)
	}
	if _, isErr := callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages"}}); isErr {
		t.Fatal("configure after allow refused")
	}
	var human []string
	for _, l := range readAudit(t, path) {
		if l["source"] == "human" {
			human = append(human, l["event"].(string)+":"+l["setting"].(string))
		}
	}
	if strings.Join(human, ",") != "capture_revoked:ws_mode,capture_allowed:ws_mode" {
		t.Fatalf("human audit lines: %v", human)
	}
	// The veto API refuses web pages like every route, and bad bodies.
	if code, _ := do(t, base, call{method: "POST", path: "/api/overrides/revoke", body: `{"all":true}`, header: map[string]string{"Origin": "http://evil.example", TokenHeader: s.HumanToken()}}); code != 403 {
		t.Fatalf("web page revoke: %d", code)
	}
	for _, bad := range []string{`{}`, `{"setting":"nope"}`, `not json`} {
		if code, _ := do(t, base, call{method: "POST", path: "/api/overrides/revoke", body: bad, header: asHuman(s)}); code != 400 {
			t.Errorf("%s: %d", bad, code)
		}
	}
	if code, _ := do(t, base, call{method: "POST", path: "/api/overrides/allow", body: `{"setting":"log_level"}`, header: asHuman(s)}); code != 404 {
		t.Errorf("allow a setting never revoked: %d", code)
	}
}

// Scenario 9: overrides end with the server, and the end is audited.
func TestSessionEndOnShutdown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	func() {
		s, _ := startServerWith(t, Config{Version: "test", AuditLog: path})
		ai := clientNamed(t, s, "claude-code")
		callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"log_level": "all"}})
		stopServer(t, s)
	}()
	lines := readAudit(t, path)
	end, stop := lines[len(lines)-2], lines[len(lines)-1]
	if end["event"] != "capture_reset" || end["reason"] != "session_end" || stop["event"] != "server_stop" {
		t.Fatalf("last audit lines: %v %v", end, stop)
	}
}

func TestConfigureClear(t *testing.T) {
	s := New(Config{Version: "test"})
	c := mcpClient(t, s)
	s.Store().AddLogs([]capture.LogEntry{{Level: "error", Message: "x"}})
	out, isErr := callTool(t, c, "configure", map[string]any{"action": "clear", "buffer": "logs"})
	if isErr || out["cleared"] != "logs" {
		t.Fatalf("%v", out)
	}
	st := s.Store().Stats()
	if st["logs"].Count != 0 || st["errors"].Count != 1 {
		t.Fatalf("after clear: %+v", st)
	}
	if out, isErr := callTool(t, c, "configure", map[string]any{"action": "clear", "buffer": "dom"}); !isErr || out["error"] != "invalid_param" {
		t.Fatalf("bad buffer: %v", out)
	}
}
