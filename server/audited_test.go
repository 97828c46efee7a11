package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/audit"
)

// Every AI request that changes or tries to change state, every human
// decision and every pilot switch flip writes exactly its line, naming this
// server; a server that ends with nothing overridden writes no reset line.
func TestEveryCaseWritesExactlyItsLine(t *testing.T) {
	type env struct {
		s    *Server
		base string
		ai   func(tool string, a map[string]any)
		ck   *testClock
	}
	ws := map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages"}}
	cases := []struct {
		name  string
		setup func(e env)
		act   func(e env)
		want  string // event:reason-or-error, one per line
	}{
		{"accepted override", nil, func(e env) { e.ai("configure", ws) }, "capture_override:"},
		{"refused: revoked", func(e env) { e.s.Control().Revoke("ws_mode") }, func(e env) { e.ai("configure", ws) },
			"configure_refused:revoked_by_user"},
		{"refused: rate limited", func(e env) { e.ai("configure", ws) }, func(e env) {
			e.ai("configure", map[string]any{"action": "capture", "settings": map[string]any{"log_level": "all"}})
		}, "configure_refused:rate_limited"},
		{"refused: unknown setting", nil, func(e env) {
			e.ai("configure", map[string]any{"action": "capture", "settings": map[string]any{"pilot": true}})
		}, "configure_refused:invalid_param"},
		{"refused: unknown action", nil, func(e env) { e.ai("configure", map[string]any{"action": "revoke"}) },
			"configure_refused:invalid_param"},
		{"clear", nil, func(e env) { e.ai("configure", map[string]any{"action": "clear", "buffer": "logs"}) }, "buffers_cleared:"},
		{"reset", nil, func(e env) { e.ai("configure", map[string]any{"action": "capture", "settings": "reset"}) }, "capture_reset:explicit"},
		{"human revokes", nil, func(e env) {
			do(t, e.base, call{method: "POST", path: "/api/overrides/revoke", body: `{"setting":"log_level"}`, header: asHuman(e.s)})
		}, "capture_revoked:"},
		{"human allows", func(e env) { e.s.Control().Revoke("log_level") }, func(e env) {
			do(t, e.base, call{method: "POST", path: "/api/overrides/allow", body: `{"setting":"log_level"}`, header: asHuman(e.s)})
		}, "capture_allowed:"},
		{"human blocks the pilot", nil, func(e env) {
			do(t, e.base, call{method: "POST", path: "/api/pilot/block", body: `{"blocked":true}`, header: asHuman(e.s)})
		}, "pilot_blocked:"},
		{"a call without the token", nil, func(e env) {
			do(t, e.base, call{method: "POST", path: "/api/pilot/block", body: `{"blocked":true}`})
		}, "human_api_refused:human_token_required"},
		{"the popup's switch flips on, then off", nil, func(e env) {
			ext := map[string]string{"Origin": ExtensionOrigin}
			do(t, e.base, call{method: "POST", path: "/settings?pilot=true", header: ext})
			do(t, e.base, call{method: "POST", path: "/settings?pilot=true", header: ext}) // no flip
			do(t, e.base, call{method: "POST", path: "/settings?pilot=false", header: ext})
		}, "pilot_switched_on: pilot_switched_off:"},
		{"interact refused", nil, func(e env) { e.ai("interact", map[string]any{"action": "list_states"}) },
			"pilot_action:ai_web_pilot_disabled"},
		{"stop with nothing overridden", nil, func(e env) { stopServer(t, e.s) }, "server_stop:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			ck := &testClock{t: time.Date(2026, 1, 24, 15, 32, 0, 0, time.UTC)}
			s, base := startServerWith(t, Config{Version: "test", AuditLog: path, Clock: ck.now})
			ai := clientNamed(t, s, "claude-code")
			e := env{s: s, base: base, ck: ck, ai: func(tool string, a map[string]any) { callTool(t, ai, tool, a) }}
			if c.setup != nil {
				c.setup(e)
			}
			before := len(readAudit(t, path))
			c.act(e)
			var got []string
			for _, l := range readAudit(t, path)[before:] {
				if l["pid"] != float64(os.Getpid()) || l["port"] != float64(s.cfg.Port) {
					t.Errorf("the line does not name its server: %v", l)
				}
				detail, _ := l["error"].(string)
				if detail == "" {
					detail, _ = l["reason"].(string)
				}
				got = append(got, l["event"].(string)+":"+detail)
			}
			if strings.Join(got, " ") != c.want {
				t.Fatalf("lines %q, want %q", got, c.want)
			}
		})
	}
}

// Each line names its evidence: the pilot switch the extension reports is
// the extension's word, not the human's, and only the token-holding API
// writes the human's lines (kept in their own file too).
func TestAuditNamesItsEvidence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	s, base := startServerWith(t, Config{Version: "test", AuditLog: path})
	do(t, base, call{method: "POST", path: "/settings?pilot=true", header: map[string]string{"Origin": ExtensionOrigin}})
	do(t, base, call{method: "POST", path: "/api/pilot/block", body: `{"blocked":true}`, header: asHuman(s)})
	got := map[string]string{}
	for _, l := range readAudit(t, path) {
		got[l["event"].(string)] = l["source"].(string) + "/" + l["agent"].(string)
	}
	if got["pilot_switched_on"] != "extension/extension" || got["pilot_blocked"] != "human/human" {
		t.Fatalf("sources: %v", got)
	}
	kept := readAudit(t, audit.HumanPath(path))
	if len(kept) != 1 || kept[0]["event"] != "pilot_blocked" {
		t.Fatalf("the human's file: %v", kept)
	}
}

// What the AI names itself and what it sends are capped in every line: a
// 1 MB client name and a 4.5 MB selector give lines of a few hundred bytes
// that still tell them apart by length and hash.
func TestAuditedValuesCapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	s, _ := startServerWith(t, Config{Version: "test", AuditLog: path})
	ai := clientNamed(t, s, strings.Repeat("n", 1<<20))
	callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"log_level": "all"}})
	callTool(t, ai, "interact", map[string]any{"action": "highlight", "selector": strings.Repeat("#a", 9<<18)})
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 3 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if len(l) > 1024 {
			t.Fatalf("a line of %d bytes: %.200s", len(l), l)
		}
	}
	last := readAudit(t, path)
	override, action := last[len(last)-2], last[len(last)-1]
	if override["event"] != "capture_override" || !strings.Contains(override["agent"].(string), "…[1048576 bytes, sha256:") {
		t.Fatalf("override line: %v", override)
	}
	if action["event"] != "pilot_action" || !strings.Contains(action["selector"].(string), "…[4718592 bytes, sha256:") {
		t.Fatalf("pilot line: %v", action)
	}
}
