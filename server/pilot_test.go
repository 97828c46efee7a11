package server

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/pilot"
)

// pilotWorker plays an extension whose popup toggle is `on`; it answers
// pilot queries by echoing their params.
func pilotWorker(t *testing.T, base string, on bool) {
	t.Helper()
	connectWorkerHello(t, base, map[string]any{"type": "hello", "pilot": on}, func(q map[string]any) map[string]any {
		return map[string]any{"tab": 5, "result": map[string]any{"success": true, "echo": q["params"]}}
	})
}

func TestPilotStatusEverywhere(t *testing.T) {
	s, base := startServer(t)
	ai := mcpClient(t, s)
	_, st := do(t, base, call{method: "GET", path: "/pilot-status"})
	if st["source"] != "never_connected" || st["enabled"] != false || st["extension_connected"] != false {
		t.Fatalf("never: %v", st)
	}
	pilotWorker(t, base, true)
	waitReachable(t, s)
	eventually(t, "the pilot on", func() bool { return s.PilotStatus().Enabled })
	obs, _ := callTool(t, ai, "observe", map[string]any{"what": "pilot"})
	_, http := do(t, base, call{method: "GET", path: "/pilot-status"})
	h, _ := callTool(t, ai, "observe", map[string]any{"what": "health"})
	for name, v := range map[string]any{"observe": obs, "http": http, "health": h["pilot"]} {
		m := v.(map[string]any)
		if m["enabled"] != true || m["state"] != "on" || m["source"] != "extension_poll" || m["extension_connected"] != true || m["last_poll_ago"] == nil {
			t.Errorf("%s: %v", name, m)
		}
	}
}

// The extension goes away while the pilot is on: every surface says the
// pilot is unknown, never its last report, and the AI is refused.
func TestPilotOfAGoneExtensionIsUnknown(t *testing.T) {
	var ahead atomic.Int64 // how far the server's clock runs ahead of the wall clock
	s, base := startServerWith(t, Config{Version: "test", Clock: func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }})
	ai := mcpClient(t, s)
	w := connectWorkerHello(t, base, map[string]any{"type": "hello", "pilot": true}, func(map[string]any) map[string]any { return nil })
	waitReachable(t, s)
	eventually(t, "the pilot on", func() bool { return s.PilotStatus().Enabled })
	w.c.CloseNow()
	eventually(t, "the socket gone", func() bool { return !s.queries.Reachable() })
	ahead.Store(int64(pilot.Fresh)) // the last word is pilot.Fresh old
	if st := s.PilotStatus(); st.Source != "stale" {
		t.Fatalf("the pilot after pilot.Fresh without a word: %+v", st)
	}
	obs, _ := callTool(t, ai, "observe", map[string]any{"what": "pilot"})
	_, http := do(t, base, call{method: "GET", path: "/pilot-status"})
	h, _ := callTool(t, ai, "observe", map[string]any{"what": "health"})
	for name, v := range map[string]any{"observe": obs, "http": http, "health": h["pilot"]} {
		if m := v.(map[string]any); m["state"] != "unknown" || m["enabled"] != false || m["extension_connected"] != false {
			t.Errorf("%s: %v", name, m)
		}
	}
	if out, isErr := callTool(t, ai, "interact", map[string]any{"action": "list_states"}); !isErr || out["error"] != "extension_not_connected" {
		t.Fatalf("interact with the extension gone: %v", out)
	}
}

func TestInteractRefusedUnlessEnabledAndUnblocked(t *testing.T) {
	s, base := startServer(t)
	ai := mcpClient(t, s)
	actions := []map[string]any{
		{"action": "highlight", "selector": "h1"}, {"action": "save_state", "snapshot_name": "a"},
		{"action": "load_state", "snapshot_name": "a"}, {"action": "list_states"},
		{"action": "delete_state", "snapshot_name": "a"}, {"action": "execute_js", "script": "1 + 1"},
	}
	for _, a := range actions {
		out, isErr := callTool(t, ai, "interact", a)
		if !isErr || out["error"] != "ai_web_pilot_disabled" || out["message"] != "Enable 'AI Web Pilot' in extension popup to use this tool" {
			t.Fatalf("%v with no extension: %v", a, out)
		}
	}
	pilotWorker(t, base, false) // connected, toggle off
	waitReachable(t, s)
	if out, _ := callTool(t, ai, "interact", actions[0]); out["error"] != "ai_web_pilot_disabled" {
		t.Fatalf("toggle off: %v", out)
	}
}

func TestInteractWhenEnabledIsAuditedAndBlockable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	s, base := startServerWith(t, Config{Version: "test", AuditLog: path})
	ai := clientNamed(t, s, "pilot-agent")
	pilotWorker(t, base, true)
	waitReachable(t, s)
	eventually(t, "the pilot on", func() bool { return s.PilotStatus().Enabled })

	out, isErr := callTool(t, ai, "interact", map[string]any{"action": "highlight", "selector": "#go"})
	if isErr || out["tab"] != float64(5) || mustJSON(out["echo"]) != `{"action":"highlight","duration_ms":5000,"selector":"#go"}` {
		t.Fatalf("highlight: %v", out)
	}
	script := "return " + strings.Repeat("1+", 150) + "1"
	if _, isErr := callTool(t, ai, "interact", map[string]any{"action": "execute_js", "script": script}); isErr {
		t.Fatal("execute_js refused")
	}
	for _, bad := range []map[string]any{
		{"action": "highlight"}, {"action": "save_state"}, {"action": "execute_js"},
		{"action": "save_state", "snapshot_name": strings.Repeat("n", 51)}, {"action": "execute_js", "script": "1", "timeout_ms": "soon"},
	} {
		if out, isErr := callTool(t, ai, "interact", bad); !isErr || out["error"] != "invalid_param" {
			t.Errorf("%v: %v", bad, out)
		}
	}

	code, st := do(t, base, call{method: "POST", path: "/api/pilot/block", body: `{"blocked":true}`, header: asHuman(s)})
	if code != 200 || st["blocked_by_user"] != true {
		t.Fatalf("block: %d %v", code, st)
	}
	if out, _ := callTool(t, ai, "interact", map[string]any{"action": "list_states"}); out["error"] != "ai_web_pilot_disabled" || !strings.Contains(out["message"].(string), "dashboard") {
		t.Fatalf("blocked: %v", out)
	}
	do(t, base, call{method: "POST", path: "/api/pilot/block", body: `{"blocked":false}`, header: asHuman(s)})
	if _, isErr := callTool(t, ai, "interact", map[string]any{"action": "list_states"}); isErr {
		t.Fatal("unblock did not restore the pilot")
	}

	var lines []string
	for _, l := range readAudit(t, path) {
		if l["pid"] != float64(os.Getpid()) || l["port"] != float64(s.Port()) {
			t.Errorf("a line does not name its server: %v", l)
		}
		delete(l, "pid")
		delete(l, "port")
		lines = append(lines, mustJSON(l))
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{
		`"action":"highlight","agent":"pilot-agent","event":"pilot_action","result":"ok","selector":"#go"`,
		`"event":"pilot_blocked","source":"human"`,
		`"action":"list_states","agent":"pilot-agent","error":"ai_web_pilot_disabled","event":"pilot_action","result":"error"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("audit lacks %s:\n%s", want, all)
		}
	}
	if !strings.Contains(all, `"script":"return 1+1+`) || !strings.Contains(all, `"sha256":"`) || strings.Contains(all, strings.Repeat("1+", 120)) {
		t.Errorf("script digest: %s", all)
	}
}

// No request from MCP or HTTP can turn the pilot on: only the extension's
// own report moves it.
func TestNothingButTheExtensionEnablesThePilot(t *testing.T) {
	s, base := startServer(t)
	ai := mcpClient(t, s)
	tries := []call{
		{method: "GET", path: "/settings?pilot=true"},
		{method: "GET", path: "/pending-queries?pilot=true"},
		{method: "GET", path: "/settings?pilot=true", header: map[string]string{"Origin": "http://localhost:3000"}},
		{method: "POST", path: "/api/pilot/block", body: `{"blocked":false}`},
		{method: "POST", path: "/api/pilot/block", body: `{"enabled":true}`},
		{method: "POST", path: "/pilot-status", body: `{"enabled":true}`},
		{method: "POST", path: "/api/pilot/enable", body: `{}`},
	}
	for _, c := range tries {
		do(t, base, c)
	}
	for _, args := range []map[string]any{
		{"action": "capture", "settings": map[string]any{"ai_web_pilot": true}},
		{"action": "capture", "settings": map[string]any{"pilot": "on"}},
		{"action": "pilot", "enabled": true},
	} {
		callTool(t, ai, "configure", args)
	}
	if st := s.PilotStatus(); st.Enabled {
		t.Fatalf("a request enabled the pilot: %+v", st)
	}
}

func TestHealthNamesTheExtensionVersion(t *testing.T) {
	s, base := startServer(t)
	connectWorkerHello(t, base, map[string]any{"type": "hello", "version": "0.1.0", "pilot": false}, func(map[string]any) map[string]any { return nil })
	eventually(t, "the extension's version in health", func() bool { return s.Health().Extension.Version == "0.1.0" })
	if h := s.Health(); !h.Extension.Connected {
		t.Fatalf("health: %+v", h.Extension)
	}
}
