package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/decisions"
)

// A revocation, the pilot block and the AI's dropped override outlive the
// server that held them: the next server on the port (a restart or a
// takeover) restores the first two, says so, and tells the AI of the third.
func TestDecisionsSurviveTheServer(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Version: "test", AuditLog: filepath.Join(dir, "audit.jsonl"), StateFile: filepath.Join(dir, "decisions-1.json")}
	first, base := startServerWith(t, cfg)
	ai := clientNamed(t, first, "claude-code")
	if out, isErr := callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"log_level": "all"}}); isErr {
		t.Fatalf("override: %v", out)
	}
	human := map[string]string{TokenHeader: first.HumanToken()}
	if code, out := do(t, base, call{method: "POST", path: "/api/overrides/revoke", body: `{"setting":"ws_mode"}`, header: human}); code != 200 {
		t.Fatalf("revoke: %d %v", code, out)
	}
	if code, out := do(t, base, call{method: "POST", path: "/api/pilot/block", body: `{"blocked":true}`, header: human}); code != 200 {
		t.Fatalf("block: %d %v", code, out)
	}
	stopServer(t, first)

	second, _ := startServerWith(t, cfg)
	if got := second.Health().Restored; got != "ws_mode revoked · pilot blocked" {
		t.Fatalf("restored %q", got)
	}
	if !second.PilotStatus().BlockedByUser {
		t.Fatal("the pilot block was lost")
	}
	if v := second.Control().Values(); len(v) != 0 {
		t.Fatalf("the AI's override came back: %v", v)
	}
	ai2 := clientNamed(t, second, "claude-code")
	if out, isErr := callTool(t, ai2, "configure", map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages"}}); !isErr || out["error"] != "revoked_by_user" {
		t.Fatalf("revoked setting accepted after the takeover: %v", out)
	}
	obs, _ := callTool(t, ai2, "observe", map[string]any{"what": "errors"})
	if a := mustJSON(obs["alerts"]); !strings.Contains(a, "capture_dropped") || !strings.Contains(a, "log_level → all") {
		t.Fatalf("the AI was not told its override was dropped: %v", obs)
	}
	if obs, _ := callTool(t, ai2, "observe", map[string]any{"what": "errors"}); obs["alerts"] != nil {
		t.Fatalf("told twice: %v", obs["alerts"])
	}
	var restored, dropped int
	for _, l := range readAudit(t, cfg.AuditLog) {
		switch {
		case l["event"] == "decisions_restored" && l["reason"] == "ws_mode revoked · pilot blocked":
			restored++
		case l["event"] == "capture_reset" && l["reason"] == "takeover" && l["setting"] == "log_level":
			dropped++
		}
	}
	if restored != 1 || dropped != 1 {
		t.Fatalf("audit: %d restored lines, %d dropped lines", restored, dropped)
	}

	// Allowing it again is remembered too.
	stopServer(t, second)
	third, base3 := startServerWith(t, cfg)
	if code, out := do(t, base3, call{method: "POST", path: "/api/overrides/allow", body: `{"setting":"ws_mode"}`,
		header: map[string]string{TokenHeader: third.HumanToken()}}); code != 200 {
		t.Fatalf("allow: %d %v", code, out)
	}
	stopServer(t, third)
	fourth, _ := startServerWith(t, cfg)
	if got := fourth.Health().Restored; got != "pilot blocked" {
		t.Fatalf("restored %q", got)
	}
}

// A start rewrites the decisions file only when it changed what the file
// must hold (the dropped AI overrides), so that no start waits on an
// fsync for nothing.
func TestStartRewritesDecisionsOnlyWhenChanged(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Version: "test", AuditLog: filepath.Join(dir, "audit.jsonl"), StateFile: filepath.Join(dir, "decisions-1.json")}
	held := decisions.State{Revoked: map[string]time.Time{"ws_mode": time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)}, PilotBlocked: true}
	if err := decisions.Save(cfg.StateFile, held); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(cfg.StateFile)
	s, _ := startServerWith(t, cfg)
	after, err := os.Stat(cfg.StateFile)
	if err != nil || !os.SameFile(before, after) || s.Health().Restored != "ws_mode revoked · pilot blocked" {
		t.Fatalf("unchanged decisions: rewritten %v (%v), restored %q", !os.SameFile(before, after), err, s.Health().Restored)
	}

	held.AIOverrides = map[string]any{"log_level": "all"}
	if err := decisions.Save(cfg.StateFile, held); err != nil {
		t.Fatal(err)
	}
	before, _ = os.Stat(cfg.StateFile)
	startServerWith(t, cfg)
	after, _ = os.Stat(cfg.StateFile)
	st, err := decisions.Load(cfg.StateFile)
	if os.SameFile(before, after) || err != nil || len(st.AIOverrides) != 0 || !st.PilotBlocked || len(st.Revoked) != 1 {
		t.Fatalf("dropped overrides: rewritten %v, state %+v %v", !os.SameFile(before, after), st, err)
	}
}

// unreadableFiles are what a broken disk, a crash or a meddler leaves where
// the decisions file was: each must hold the AI, never read as "nothing".
var unreadableFiles = map[string]func(t *testing.T, path string){
	"random bytes": func(t *testing.T, path string) { os.WriteFile(path, []byte("\x8f\x00\xffgarbage\x01\x02"), 0o600) },
	"truncated":    func(t *testing.T, path string) { os.WriteFile(path, []byte(`{"revoked":{"ws_mode":"2026-11-2`), 0o600) },
	"null":         func(t *testing.T, path string) { os.WriteFile(path, []byte("null\n"), 0o600) },
	"empty":        func(t *testing.T, path string) { os.WriteFile(path, nil, 0o600) },
	"a directory": func(t *testing.T, path string) {
		if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
			t.Fatal(err)
		}
	},
	"mode 000": func(t *testing.T, path string) {
		if os.Geteuid() == 0 {
			t.Skip("root reads a mode 000 file")
		}
		os.WriteFile(path, []byte(`{"pilot_blocked":true}`), 0o000)
	},
}

// A decisions file that cannot be read is kept aside, and until the human
// recovers, the AI's capture changes are refused with decisions_unreadable,
// the pilot is blocked and approval is ask; a restart keeps the hold.
func TestUnreadableDecisionsHoldTheAI(t *testing.T) {
	for name, spoil := range unreadableFiles {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := Config{Version: "test", AuditLog: filepath.Join(dir, "audit.jsonl"), StateFile: filepath.Join(dir, "decisions-1.json"),
				PilotApproval: "auto"}
			spoil(t, cfg.StateFile)
			before, _ := os.Lstat(cfg.StateFile)
			s, _ := startServerWith(t, cfg)
			assertHeld(t, s)
			h := s.Health().Decisions
			if h == nil || h.Unreadable == "" || !strings.Contains(h.Kept, ".unreadable-") {
				t.Fatalf("health says %+v", h)
			}
			kept, err := os.Lstat(h.Kept)
			if err != nil || !os.SameFile(before, kept) {
				t.Fatalf("the unreadable file was not kept aside as %s: %v", h.Kept, err)
			}
			st, err := decisions.Load(cfg.StateFile)
			if err != nil || st.Unreadable == nil || st.Unreadable.Kept != h.Kept || !st.PilotBlocked || st.Approval != decisions.ApprovalAsk {
				t.Fatalf("the new file does not hold the hold: %+v %v", st, err)
			}
			var unreadable int
			for _, l := range readAudit(t, cfg.AuditLog) {
				if l["event"] == "decisions_unreadable" && l["source"] == "server" {
					unreadable++
				}
			}
			if unreadable != 1 {
				t.Fatalf("%d decisions_unreadable audit lines", unreadable)
			}
			stopServer(t, s)

			// A restart (the AI can start one) does not lift the hold.
			again, _ := startServerWith(t, cfg)
			assertHeld(t, again)
			if k, err := os.Lstat(h.Kept); err != nil || !os.SameFile(before, k) {
				t.Fatalf("the kept file went: %v", err)
			}
		})
	}
}

func assertHeld(t *testing.T, s *Server) {
	t.Helper()
	ai := clientNamed(t, s, "claude-code")
	out, isErr := callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"log_level": "all"}})
	if !isErr || out["error"] != "decisions_unreadable" || !strings.Contains(out["message"].(string), "dashboard") {
		t.Fatalf("the AI's override was not refused: %v", out)
	}
	if out, isErr := callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": "reset"}); !isErr || out["error"] != "decisions_unreadable" {
		t.Fatalf("the AI's reset was not refused: %v", out)
	}
	if v := s.Control().Values(); len(v) != 0 {
		t.Fatalf("overrides held: %v", v)
	}
	if !s.PilotStatus().BlockedByUser {
		t.Fatal("the pilot is not blocked")
	}
	if m := s.Approvals().Mode; m != decisions.ApprovalAsk {
		t.Fatalf("approval %q, want ask (even with --pilot-approval auto)", m)
	}
}

// The human recovers from the kept file once it reads again (here fixed by
// hand), through the token-protected API, on the record; then the AI may
// change capture again, within what the kept file revoked.
func TestRecoverDecisions(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Version: "test", AuditLog: filepath.Join(dir, "audit.jsonl"), StateFile: filepath.Join(dir, "decisions-1.json")}
	os.WriteFile(cfg.StateFile, []byte(`{"revoked":{"ws_mode":"2026-11-2`), 0o600)
	s, base := startServerWith(t, cfg)
	human := map[string]string{TokenHeader: s.HumanToken()}
	kept := s.Health().Decisions.Kept

	if code, out := do(t, base, call{method: "POST", path: "/api/decisions/recover", body: `{"from":"kept"}`}); code != 401 {
		t.Fatalf("recovered without the token: %d %v", code, out)
	}
	if code, out := do(t, base, call{method: "POST", path: "/api/decisions/recover", body: `{"from":"kept"}`, header: human}); code != 409 || out["error"] != "decisions_unreadable" {
		t.Fatalf("recovered from a file that still does not read: %d %v", code, out)
	}
	assertHeld(t, s)
	os.WriteFile(kept, []byte(`{"revoked":{"ws_mode":"2026-11-20T10:00:00Z"},"approval":"auto"}`), 0o600)
	if code, out := do(t, base, call{method: "POST", path: "/api/decisions/recover", body: `{"from":"kept"}`, header: human}); code != 200 || out["decisions"] != nil {
		t.Fatalf("recover: %d %v", code, out)
	}
	ai := clientNamed(t, s, "claude-code")
	if out, isErr := callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages"}}); !isErr || out["error"] != "revoked_by_user" {
		t.Fatalf("the kept file's revocation was not restored: %v", out)
	}
	if out, isErr := callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"log_level": "all"}}); isErr {
		t.Fatalf("still refused after the recovery: %v", out)
	}
	if s.PilotStatus().BlockedByUser || s.Approvals().Mode != decisions.ApprovalAuto {
		t.Fatalf("the kept file's pilot and approval were not restored: %+v %v", s.PilotStatus(), s.Approvals().Mode)
	}
	if st, err := decisions.Load(cfg.StateFile); err != nil || st.Unreadable != nil {
		t.Fatalf("the hold is still on disk: %+v %v", st, err)
	}
	var recovered int
	for _, l := range readAudit(t, cfg.AuditLog) {
		if l["event"] == "decisions_recovered" && l["source"] == "human" && strings.Contains(l["reason"].(string), "from the kept file") {
			recovered++
		}
	}
	if recovered != 1 {
		t.Fatalf("%d decisions_recovered lines", recovered)
	}
	if code, _ := do(t, base, call{method: "POST", path: "/api/decisions/recover", body: `{"from":"nothing"}`, header: human}); code != 404 {
		t.Fatalf("a second recovery answered %d", code)
	}
}

func TestRecoverFromNothing(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Version: "test", StateFile: filepath.Join(dir, "decisions-1.json")}
	os.WriteFile(cfg.StateFile, []byte("null"), 0o600)
	s, base := startServerWith(t, cfg)
	os.Remove(s.Health().Decisions.Kept)
	if code, out := do(t, base, call{method: "POST", path: "/api/decisions/recover", body: `{"from":"kept"}`,
		header: map[string]string{TokenHeader: s.HumanToken()}}); code != 409 || !strings.Contains(out["message"].(string), "gone") {
		t.Fatalf("recovered from a kept file that is gone: %d %v", code, out)
	}
	if code, out := do(t, base, call{method: "POST", path: "/api/decisions/recover", body: `{"from":"nothing"}`,
		header: map[string]string{TokenHeader: s.HumanToken()}}); code != 200 {
		t.Fatalf("recover: %d %v", code, out)
	}
	ai := clientNamed(t, s, "claude-code")
	if out, isErr := callTool(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"log_level": "all"}}); isErr {
		t.Fatalf("still refused: %v", out)
	}
	if s.PilotStatus().BlockedByUser || s.Health().Decisions != nil {
		t.Fatalf("pilot %+v, decisions %+v", s.PilotStatus(), s.Health().Decisions)
	}
}

// A save that fails (a directory where the file goes) is a 5xx on the
// human's call and shows in the health the header reads, not a 200.
func TestFailedSaveIsAnError(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Version: "test", StateFile: filepath.Join(dir, "decisions-1.json")}
	s, base := startServerWith(t, cfg)
	human := map[string]string{TokenHeader: s.HumanToken()}
	if err := os.MkdirAll(filepath.Join(cfg.StateFile, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []call{
		{method: "POST", path: "/api/overrides/revoke", body: `{"setting":"ws_mode"}`},
		{method: "POST", path: "/api/overrides/allow", body: `{"setting":"ws_mode"}`},
		{method: "POST", path: "/api/pilot/block", body: `{"blocked":true}`},
		{method: "POST", path: "/api/approvals/mode", body: `{"mode":"ask"}`},
		{method: "POST", path: "/api/origins/answer", body: `{"origin":"moz-extension://6f1d3c2a-9b7e-4c55-8a10-3d2f0e4b7c91","accept":true}`},
	} {
		c.header = human
		if code, out := do(t, base, c); code != 500 || out["error"] != "decisions_not_saved" {
			t.Fatalf("%s: %d %v", c.path, code, out)
		}
	}
	if d := s.Health().Decisions; d == nil || d.SaveError == "" {
		t.Fatalf("health: %+v", d)
	}
	os.RemoveAll(cfg.StateFile)
	if code, out := do(t, base, call{method: "POST", path: "/api/pilot/block", body: `{"blocked":false}`, header: human}); code != 200 || s.Health().Decisions != nil {
		t.Fatalf("after the fix: %d %v", code, out)
	}
}
