package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The human's API refuses every call without the token, and audits it; no
// MCP tool reaches the same decisions.
func TestHumanAPINeedsTheToken(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Version: "test", AuditLog: filepath.Join(dir, "audit.jsonl"), TokenFile: filepath.Join(dir, "human.token")}
	s, base := startServerWith(t, cfg)
	ai := clientNamed(t, s, "claude-code")
	if _, isErr := callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages"}}); isErr {
		t.Fatal("configure failed")
	}
	calls := []call{
		{method: "POST", path: "/api/overrides/revoke", body: `{"setting":"ws_mode"}`},
		{method: "POST", path: "/api/overrides/revoke", body: `{"all":true}`, header: map[string]string{TokenHeader: "guess"}},
		{method: "POST", path: "/api/overrides/allow", body: `{"setting":"ws_mode"}`},
		{method: "POST", path: "/api/pilot/block", body: `{"blocked":true}`},
		{method: "POST", path: "/api/pilot/block", body: `{"blocked":true}`, header: map[string]string{TokenHeader: s.HumanToken()[:10]}},
	}
	for _, c := range calls {
		if code, out := do(t, base, c); code != 401 || out["error"] != "human_token_required" {
			t.Errorf("%s %s %v: %d %v", c.method, c.path, c.header, code, out)
		}
	}
	for _, args := range []map[string]any{
		{"action": "revoke", "setting": "ws_mode"}, {"action": "allow", "setting": "ws_mode"},
		{"action": "block"}, {"action": "approve"}, {"action": "approval", "mode": "auto"},
		{"action": "capture", "settings": map[string]any{"approval": "auto"}},
		{"action": "capture", "settings": map[string]any{"pilot_blocked": false}},
	} {
		if _, isErr := callTool(t, ai, "configure", args); !isErr {
			t.Errorf("configure %v was accepted", args)
		}
	}
	if v := s.Control().Values()["ws_mode"]; v != "messages" || len(s.Control().State().Revoked) != 0 || s.PilotStatus().BlockedByUser {
		t.Fatalf("a refused call changed the state: %v %+v %+v", s.Control().Values(), s.Control().State(), s.PilotStatus())
	}
	var refused []string
	for _, l := range readAudit(t, cfg.AuditLog) {
		if l["event"] == "human_api_refused" {
			refused = append(refused, l["action"].(string)+" "+l["reason"].(string))
		}
	}
	want := "POST /api/overrides/revoke no token,POST /api/overrides/revoke wrong token,POST /api/overrides/allow no token," +
		"POST /api/pilot/block no token,POST /api/pilot/block wrong token"
	if strings.Join(refused, ",") != want {
		t.Fatalf("refusals audited: %v", refused)
	}

	// The file holds the token, for the user alone.
	fi, err := os.Stat(cfg.TokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	b, _ := os.ReadFile(cfg.TokenFile)
	tok := strings.TrimSpace(string(b))
	if code, out := do(t, base, call{method: "POST", path: "/api/overrides/revoke", body: `{"setting":"ws_mode"}`,
		header: map[string]string{TokenHeader: tok}}); code != 200 {
		t.Fatalf("with the file's token: %d %v", code, out)
	}
}
