package server

import (
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

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
	if len(lines) != 4 {
		t.Fatalf("audit lines for 4 security calls that passed the schema: %v", lines)
	}
	if l := lines[0]; l["agent"] != "sec-agent" || l["source"] != "ai" || !strings.Contains(l["result"].(string), "3") {
		t.Errorf("first audit line: %v", l)
	}
	if l := lines[1]; !strings.Contains(l["result"].(string), "1 findings (1 critical") {
		t.Errorf("audit line of the critical credentials call: %v", l)
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
