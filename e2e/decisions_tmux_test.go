//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Issue 41: a decisions file left truncated at start holds the AI: its
// configure, through a real MCP client relaying to the dashboard's server,
// is refused with decisions_unreadable; the dashboard in a real terminal
// says so; the unreadable file is kept beside the new one, in a folder
// only the user may enter; the human's n lifts the hold.
func TestCorruptDecisionsHoldTheAIInTmux(t *testing.T) {
	port := freePort(t)
	dir := filepath.Join(testHome, ".gasoline")
	state := filepath.Join(dir, "decisions-"+strconv.Itoa(port)+".json")
	corrupt := []byte(`{"revoked":{"ws_mode":"2026-11-27T10:`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	if err := os.WriteFile(state, corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		kept, _ := filepath.Glob(state + ".unreadable-*")
		for _, k := range append(kept, state) {
			os.Remove(k)
		}
	})

	dash := startDashboard(t, port, "decisions")
	dash.await(20*time.Second, "server in this process", "YOUR DECISIONS COULD NOT BE READ", "unexpected end of JSON input")
	ai := mcpStdio(t, port, "claude-code")
	out := aiTries(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages"}})
	if out["error"] != "decisions_unreadable" || !strings.Contains(out["message"].(string), "dashboard") {
		t.Fatalf("configure while the decisions are unreadable: %v", out)
	}
	if out := aiTries(t, ai, "observe", map[string]any{"what": "pilot"}); !strings.Contains(mustJSON(out), `"blocked_by_user":true`) {
		t.Fatalf("the pilot is not blocked: %v", out)
	}

	kept, _ := filepath.Glob(state + ".unreadable-*")
	if len(kept) != 1 {
		t.Fatalf("kept files: %v", kept)
	}
	if b, err := os.ReadFile(kept[0]); err != nil || string(b) != string(corrupt) {
		t.Fatalf("the kept file holds %q (%v)", b, err)
	}
	if b, err := os.ReadFile(state); err != nil || !strings.Contains(string(b), `"unreadable"`) || !strings.Contains(string(b), filepath.Base(kept[0])) {
		t.Fatalf("the new file: %s (%v)", b, err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, state: 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %v, want %v (%v)", path, fi.Mode().Perm(), want, err)
		}
	}

	dash.keys("esc")
	dash.await(10*time.Second, "AI held · R")
	dash.keys("R")
	dash.await(10*time.Second, "YOUR DECISIONS COULD NOT BE READ")
	dash.keys("n")
	dash.await(10*time.Second, "started from no decisions")
	if out := aiTries(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages"}}); out["error"] != nil {
		t.Fatalf("configure after the human recovered: %v", out)
	}
	if b, _ := os.ReadFile(kept[0]); string(b) != string(corrupt) {
		t.Fatalf("the kept file changed: %q", b)
	}
}
