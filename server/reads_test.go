package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capturectl"
)

// Every observe, analyze and generate call is kept for the human: its mode,
// the names of what it asked (a free-text value never), how many entries
// and bytes it got, or its error code. The AI's other tools are not reads.
func TestReadsAreKeptForTheHuman(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Version: "test", AuditLog: filepath.Join(dir, "audit.jsonl"), StateFile: filepath.Join(dir, "decisions.json")}
	s, base := startServerWith(t, cfg)
	do(t, base, call{method: "POST", path: "/logs", body: `{"entries":[{"level":"error","message":"a"},{"level":"error","message":"b"}]}`})
	ai := clientNamed(t, s, "claude-code")
	callTool(t, ai, "observe", map[string]any{"what": "logs", "limit": 5, "url_filter": ""})
	callTool(t, ai, "observe", map[string]any{"what": "errors", "url_filter": "secret-token-in-url"})
	callTool(t, ai, "generate", map[string]any{"format": "sarif"}) // no audit yet: not_found
	callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"log_level": "all"}})

	human := map[string]string{TokenHeader: s.HumanToken()}
	if code, _ := do(t, base, call{method: "GET", path: "/api/reads"}); code != http.StatusForbidden && code != http.StatusUnauthorized {
		t.Fatalf("GET /api/reads without the token: %d", code)
	}
	code, out := do(t, base, call{method: "GET", path: "/api/reads", header: human})
	if code != 200 {
		t.Fatalf("GET /api/reads: %d %v", code, out)
	}
	rs, _ := out["reads"].([]any)
	if len(rs) != 3 || out["audit_reads"] != false {
		t.Fatalf("reads %s", mustJSON(out))
	}
	first, second := rs[0].(map[string]any), rs[2].(map[string]any)
	if r := rs[1].(map[string]any); r["mode"] != "errors" || r["asked"] != "url_filter" || r["entries"] != 0.0 {
		t.Errorf("observe errors read %s", mustJSON(r))
	}
	if first["tool"] != "observe" || first["mode"] != "logs" || first["asked"] != "limit=5 url_filter" ||
		first["entries"] != 2.0 || first["agent"] != "claude-code" || first["bytes"].(float64) < 20 || first["session"] == "" {
		t.Errorf("observe read %s", mustJSON(first))
	}
	if strings.Contains(mustJSON(out), "secret-token-in-url") {
		t.Errorf("a free-text value reached the record: %s", mustJSON(out))
	}
	if second["tool"] != "generate" || second["mode"] != "sarif" || second["error"] != "not_found" || second["entries"] != nil {
		t.Errorf("failed read %s", mustJSON(second))
	}
	for _, l := range readAudit(t, cfg.AuditLog) {
		if l["event"] == "ai_read" {
			t.Fatalf("a read reached the audit file though the human did not ask: %v", l)
		}
	}
}

// audit_reads is the human's: only the token sets it; once on, reads are
// audit lines too; it survives the server, and the change is audited.
func TestAuditReadsIsTheHumans(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Version: "test", AuditLog: filepath.Join(dir, "audit.jsonl"), StateFile: filepath.Join(dir, "decisions.json")}
	s, base := startServerWith(t, cfg)
	if code, _ := do(t, base, call{method: "POST", path: "/api/reads/audit", body: `{"audit_reads":true}`}); code == 200 || s.reads.Audited() {
		t.Fatalf("set without the token: %d", code)
	}
	human := map[string]string{TokenHeader: s.HumanToken()}
	if code, out := do(t, base, call{method: "POST", path: "/api/reads/audit", body: `{}`, header: human}); code != 400 {
		t.Fatalf("no value: %d %v", code, out)
	}
	if code, out := do(t, base, call{method: "POST", path: "/api/reads/audit", body: `{"audit_reads":true}`, header: human}); code != 200 || out["audit_reads"] != true {
		t.Fatalf("turn on: %d %v", code, out)
	}
	ai := clientNamed(t, s, "cursor")
	callTool(t, ai, "observe", map[string]any{"what": "logs", "level": "warn"})
	var changed, read int
	for _, l := range readAudit(t, cfg.AuditLog) {
		switch {
		case l["event"] == "audit_reads" && l["to"] == true && l["source"] == "human":
			changed++
		case l["event"] == "ai_read" && l["name"] == "observe" && l["action"] == "logs" && l["reason"] == "level=warn" && l["agent"] == "cursor":
			read++
		}
	}
	if changed != 1 || read != 1 {
		t.Fatalf("audit: %d change lines, %d read lines", changed, read)
	}
	stopServer(t, s)
	second, _ := startServerWith(t, cfg)
	if !second.reads.Audited() || second.Health().Restored != "AI reads audited" {
		t.Fatalf("not restored: %v %q", second.reads.Audited(), second.Health().Restored)
	}
}

// The reads reach the token holder's stream, held ones first, and no
// other stream.
func TestReadsOnTheHumansStreamOnly(t *testing.T) {
	s, base := startServer(t)
	ai := clientNamed(t, s, "claude-code")
	callTool(t, ai, "observe", map[string]any{"what": "network"})
	hr := openStream(t, base, s.HumanToken())
	ar := openStream(t, base, "")
	hr.until(t, "reads_audit", `"audit_reads":false`)
	hr.until(t, "ai_read", `"mode":"network"`)
	callTool(t, ai, "analyze", map[string]any{"target": "api"})
	hr.until(t, "ai_read", `"mode":"api"`)
	// The anonymous stream: its opening and two statuses, no read.
	for seen := 0; seen < 2; {
		ev, data := ar.next(t)
		if strings.HasPrefix(ev, "ai_read") || ev == "reads_audit" {
			t.Fatalf("an anonymous stream got %s %s", ev, data)
		}
		if ev == "status" {
			seen++
		}
	}
}

// entriesOf counts a buffer read by its Count (alerts riding along or
// not), a list by its entries, and nothing else.
func TestEntriesOf(t *testing.T) {
	type list struct{ Entries []int }
	for _, tc := range []struct {
		v    any
		want int
	}{
		{page{Count: 2, Entries: []int{1, 2}}, 2},
		{&page{Count: 0}, 0},
		{list{Entries: []int{1, 2, 3}}, 3},
		{&page{riders: riders{Alerts: []capturectl.Alert{{}}}, Count: 4}, 4},
		{struct{ Service string }{"gasoline"}, -1},
		{[]int{1, 2}, -1},
		{nil, -1},
	} {
		got := entriesOf(tc.v)
		switch {
		case tc.want < 0 && got != nil:
			t.Errorf("%#v: %d entries, want none", tc.v, *got)
		case tc.want >= 0 && (got == nil || *got != tc.want):
			t.Errorf("%#v: %v, want %d", tc.v, got, tc.want)
		}
	}
}

// Decisions that cannot be read fail towards the human: the AI's reads
// are audited until the human recovers, and from nothing they are not.
func TestUnreadableDecisionsAuditReads(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Version: "test", AuditLog: filepath.Join(dir, "audit.jsonl"), StateFile: filepath.Join(dir, "decisions.json")}
	if err := os.WriteFile(cfg.StateFile, []byte(`{"audit_reads":tr`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, base := startServerWith(t, cfg)
	if !s.reads.Audited() {
		t.Fatal("reads are not audited while the human's decisions are unreadable")
	}
	if code, out := do(t, base, call{method: "POST", path: "/api/decisions/recover", body: `{"from":"nothing"}`,
		header: map[string]string{TokenHeader: s.HumanToken()}}); code != 200 {
		t.Fatalf("recover: %d %v", code, out)
	}
	if s.reads.Audited() {
		t.Fatal("still audited after the human started from nothing")
	}
}
