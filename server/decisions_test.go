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
