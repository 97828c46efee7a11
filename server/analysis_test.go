package server

import (
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/gasoline-dev/gasoline/features/capture"
)

const (
	shopPage  = "http://127.0.0.1:5000/shop.html"
	leakedJWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MiIsIm5hbWUiOiJBZGEifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	leakedKey = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrSqUvW"
)

// post sends one batch as the extension does.
func post(t *testing.T, base, path, body string) {
	t.Helper()
	if code, out := do(t, base, call{method: "POST", path: path, body: body, header: map[string]string{"Origin": ExtensionOrigin}}); code != 200 {
		t.Fatalf("%s: %d %v", path, code, out)
	}
}

// mustCall calls a tool that must succeed.
func mustCall(t *testing.T, c *client.Client, name string, args map[string]any) map[string]any {
	t.Helper()
	out, isErr := callTool(t, c, name, args)
	if isErr {
		t.Fatalf("%s %v: %v", name, args, out)
	}
	return out
}

// wantProblem calls a tool that must fail with code, its message naming msg.
func wantProblem(t *testing.T, c *client.Client, name string, args map[string]any, code, msg string) {
	t.Helper()
	out, isErr := callTool(t, c, name, args)
	if !isErr || out["error"] != code || !strings.Contains(out["message"].(string), msg) {
		t.Errorf("%s %v: isError=%v %v, want %s naming %q", name, args, isErr, out, code, msg)
	}
}

// auditOf returns the analyze lines of the audit log whose action starts with prefix.
func auditOf(t *testing.T, path, prefix string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range readAudit(t, path) {
		if a, _ := l["action"].(string); l["event"] == "analyze" && strings.HasPrefix(a, prefix) {
			out = append(out, l)
		}
	}
	return out
}

func rules(report map[string]any) []string {
	var out []string
	for _, f := range report["findings"].([]any) {
		out = append(out, f.(map[string]any)["rule"].(string))
	}
	return out
}

func TestAnalyzeSecurityThroughMCP(t *testing.T) {
	s, base, path, _ := auditedServer(t)
	c := clientNamed(t, s, "sec-agent")
	wantProblem(t, c, "generate", map[string]any{"format": "sarif"}, "not_found", `analyze{target:"security"}`)

	post(t, base, "/logs", `{"entries":[{"level":"log","message":"session `+leakedJWT+`","page":"`+shopPage+`"}]}`)
	post(t, base, "/network", `{"entries":[{"method":"GET","url":"http://127.0.0.1:5000/api/products?key=`+leakedKey+`","status":200,"duration_ms":3,"page":"`+shopPage+`"}]}`)
	post(t, base, "/network-bodies", `{"bodies":[
		{"method":"GET","url":"http://127.0.0.1:5000/api/users/7","status":200,"content_type":"application/json","has_auth_header":false,
		 "response_body":"{\"id\":7,\"name\":\"Ada\",\"email\":\"ada@lovelace.io\"}","page":"`+shopPage+`"},
		{"method":"GET","url":"http://127.0.0.1:5000/api/me","status":200,"content_type":"application/json","has_auth_header":true,
		 "response_body":"{\"email\":\"ada@lovelace.io\"}","page":"`+shopPage+`"}]}`)

	r := mustCall(t, c, "analyze", map[string]any{"target": "security"})
	text := mustJSON(r)
	if got := strings.Join(rules(r), ","); got != "google_api_key,pii_without_auth,jwt_in_log" {
		t.Errorf("findings %s: %s", got, text)
	}
	if strings.Contains(text, leakedJWT) || strings.Contains(text, leakedKey) || !strings.Contains(text, "key=AIza[redacted]") {
		t.Errorf("evidence not redacted: %s", text)
	}
	// An authenticated endpoint with personal data is no missing-auth finding.
	if strings.Contains(text, "/api/me") {
		t.Errorf("authenticated /api/me reported: %s", text)
	}
	if crit := mustCall(t, c, "analyze", map[string]any{"target": "security", "severity_min": "critical", "checks": []any{"credentials"}}); strings.Join(rules(crit), ",") != "google_api_key" {
		t.Errorf("critical credentials only: %v", crit)
	}
	if none := mustCall(t, c, "analyze", map[string]any{"target": "security", "url_filter": "/nothing"}); len(rules(none)) != 0 {
		t.Errorf("url_filter: %v", none)
	}
	wantProblem(t, c, "analyze", map[string]any{"target": "security", "checks": []any{"xss"}}, "invalid_param", "credentials, auth_patterns")
	wantProblem(t, c, "analyze", map[string]any{"target": "security", "severity_min": "high"}, "invalid_param", "info, warning, critical")
	wantProblem(t, c, "analyze", map[string]any{"target": "security", "checks": "credentials"}, "invalid_param", "list of strings")

	// SARIF renders the latest audit: not the url_filter one that found nothing.
	mustCall(t, c, "analyze", map[string]any{"target": "security"})
	sar := mustJSON(mustCall(t, c, "generate", map[string]any{"format": "sarif"}))
	if !containsAll(sar, `"version":"2.1.0"`, "gasoline-security", "google_api_key", "jwt_in_log", "external/cwe/cwe-798") || strings.Contains(sar, leakedJWT) {
		t.Errorf("sarif: %s", sar)
	}

	lines := auditOf(t, path, "security")
	if len(lines) != 6 {
		t.Fatalf("audit lines for 6 security calls that passed the schema: %v", lines)
	}
	if l := lines[0]; l["agent"] != "sec-agent" || l["source"] != "ai" || !strings.Contains(l["result"].(string), "3") {
		t.Errorf("first audit line: %v", l)
	}
	if l := lines[3]; l["result"] != "error" || l["error"] != "invalid_param" {
		t.Errorf("audit line of a bad call: %v", l)
	}
}

// An error logged before a flood of console.log is audited still: it
// outlives the log buffer in the errors buffer.
func TestAnalyzeSecurityReadsErrorsALogFloodEvicted(t *testing.T) {
	s := New(Config{Version: "test"})
	c := mcpClient(t, s)
	start := time.Now()
	s.store.AddLogs([]capture.LogEntry{{TS: capture.Time{Time: start}, Level: "error", Message: "auth failed for " + leakedJWT, Page: shopPage}})
	flood := make([]capture.LogEntry, capture.LogCap)
	for i := range flood {
		flood[i] = capture.LogEntry{TS: capture.Time{Time: start.Add(time.Millisecond)}, Level: "log", Message: "tick", Page: shopPage}
	}
	s.store.AddLogs(flood)
	r := mustCall(t, c, "analyze", map[string]any{"target": "security"})
	if got := strings.Join(rules(r), ","); got != "jwt_in_log" {
		t.Errorf("findings %s: %v", got, r)
	}
}

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
	if !containsAll(rep, `"call_count":5`, `"price"`) || strings.Contains(rep, "12.5") {
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

func TestAnalyzeVerifyThroughMCP(t *testing.T) {
	s, base, path, _ := auditedServer(t)
	c := clientNamed(t, s, "verify-agent")
	post(t, base, "/logs", `{"entries":[{"level":"error","message":"TypeError: cart is undefined","page":"`+shopPage+`"}]}`)
	post(t, base, "/network", `{"entries":[{"method":"GET","url":"http://127.0.0.1:5000/api/cart","status":500,"duration_ms":4,"page":"`+shopPage+`"}]}`)

	start := mustCall(t, c, "analyze", map[string]any{"target": "verify", "action": "start", "name": "fix-cart"})
	id, _ := start["session_id"].(string)
	if id == "" || !containsAll(mustJSON(start), `"console_errors":1`, `"network_errors":1`) {
		t.Fatalf("start: %v", start)
	}
	wantProblem(t, c, "analyze", map[string]any{"target": "verify", "action": "compare", "session_id": id}, "invalid_param", "watch")
	mustCall(t, c, "analyze", map[string]any{"target": "verify", "action": "watch", "session_id": id})
	post(t, base, "/network", `{"entries":[{"method":"GET","url":"http://127.0.0.1:5000/api/cart","status":200,"duration_ms":4,"page":"`+shopPage+`"}]}`)
	cmp := mustCall(t, c, "analyze", map[string]any{"target": "verify", "action": "compare", "session_id": id})
	if !containsAll(mustJSON(cmp), `"verdict":"fixed"`, `"type":"resolved"`, "cart is undefined") {
		t.Fatalf("compare: %v", cmp)
	}
	if st := mustCall(t, c, "analyze", map[string]any{"target": "verify", "action": "status", "session_id": id}); st["verdict"] != "fixed" || st["label"] != "fix-cart" {
		t.Errorf("status: %v", st)
	}
	mustCall(t, c, "analyze", map[string]any{"target": "verify", "action": "cancel", "session_id": id})
	wantProblem(t, c, "analyze", map[string]any{"target": "verify", "action": "status", "session_id": id}, "not_found", id)
	wantProblem(t, c, "analyze", map[string]any{"target": "verify", "action": "watch"}, "invalid_param", "session_id")
	wantProblem(t, c, "analyze", map[string]any{"target": "verify", "action": "redo"}, "invalid_param", "start, watch, compare")
	wantProblem(t, c, "analyze", map[string]any{"target": "verify", "action": "start", "session_id": 7}, "invalid_param", "session_id must be a string")

	lines := auditOf(t, path, "verify")
	if len(lines) != 9 {
		t.Fatalf("verify audit lines: %v", lines)
	}
	if l := lines[3]; l["action"] != "verify compare" || !strings.Contains(l["result"].(string), "fixed") || l["agent"] != "verify-agent" {
		t.Errorf("compare's audit line: %v", l)
	}
}

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

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
