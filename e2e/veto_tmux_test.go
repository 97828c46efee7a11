//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// term is a dashboard running in a real terminal: tmux, on a socket of its
// own in the test's temporary folder, so no other tmux server (or its
// environment) is involved and nothing is left behind.
type term struct {
	t            testing.TB
	socket, name string
}

// startDashboard runs `gasoline --port port [args]` in a new 120×30 tmux
// window.
func startDashboard(t testing.TB, port int, name string, args ...string) *term {
	t.Helper()
	return startDashboardSized(t, 120, 30, port, name, args...)
}

// startDashboardSized is startDashboard in a w×h window.
func startDashboardSized(t testing.TB, w, h, port int, name string, args ...string) *term {
	t.Helper()
	tm := &term{t: t, socket: filepath.Join(t.TempDir(), "tmux"), name: name}
	// The dashboard's colours are what some tests read: a NO_COLOR or
	// CLICOLOR=0 the run inherits (CI logs often set one) would turn them
	// off. CI is set, as CI machines set it, so every run proves the
	// dashboard keeps its colours there.
	cmd := "env -u NO_COLOR -u CLICOLOR -u CLICOLOR_FORCE CI=true HOME=" + testHome + " " + binPath + " --port " + strconv.Itoa(port) + " " + strings.Join(args, " ")
	if out, err := exec.Command("tmux", "-S", tm.socket, "new-session", "-d", "-s", name, "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-session", "-t", name).Run() })
	return tm
}

func (tm *term) screen() string {
	out, _ := exec.Command("tmux", "-S", tm.socket, "capture-pane", "-p", "-t", tm.name).Output()
	return string(out)
}

func (tm *term) keys(keys ...string) {
	tm.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-S", tm.socket, "send-keys", "-t", tm.name}, keys...)...).CombinedOutput(); err != nil {
		tm.t.Fatalf("send-keys %v: %v %s", keys, err, out)
	}
}

// await waits until the screen shows every needle.
func (tm *term) await(within time.Duration, needles ...string) {
	tm.t.Helper()
	var s string
	if !wait.Until(within, func() bool { s = tm.screen(); return containsAll(s, needles...) }) {
		tm.t.Fatalf("timed out after %v waiting for %q; the screen:\n%s", within, needles, s)
	}
}

// alive says whether the dashboard's tmux session still runs.
func (tm *term) alive() bool {
	return exec.Command("tmux", "-S", tm.socket, "has-session", "-t", tm.name).Run() == nil
}

// aiTries calls a tool until it answers (the port may be changing hands),
// skipping rate limits, and returns the answer.
func aiTries(t testing.TB, c mcpClient, tool string, args map[string]any) map[string]any {
	t.Helper()
	var out map[string]any
	waitFor(t, 15*time.Second, tool+" to answer", func() bool {
		o, _, err := callTool(c, tool, args)
		out = o
		return err == nil && o != nil && o["error"] != "rate_limited"
	})
	return out
}

// The veto survives the dashboard: the AI sets ws_mode, the human presses x
// and P in a real terminal, quits, and the relay that takes the port over
// still refuses the AI; a new dashboard shows what was restored.
func TestVetoSurvivesTakeoverInTmux(t *testing.T) {
	port := freePort(t)
	// A fresh decisions file for this port, whatever earlier runs left.
	os.Remove(filepath.Join(testHome, ".gasoline", "decisions-"+strconv.Itoa(port)+".json"))
	dash := startDashboard(t, port, "veto")
	dash.await(10*time.Second, "server in this process")
	ai := mcpStdio(t, port, "claude-code") // relays to the dashboard's server

	ws := map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages"}}
	if out := aiTries(t, ai, "configure", ws); out["error"] != nil {
		t.Fatalf("configure: %v", out)
	}
	dash.keys("2") // away from the Overrides pane: x works from anywhere
	dash.await(5*time.Second, "AI claude-code set ws_mode → messages · x revoke")
	dash.keys("x")
	dash.await(5*time.Second, "revoked ws_mode")
	if out := aiTries(t, ai, "configure", ws); out["error"] != "revoked_by_user" {
		t.Fatalf("configure after x: %v", out)
	}
	dash.keys("P")
	dash.await(5*time.Second, "pilot: BLOCKED by you")

	dash.keys("q")
	waitFor(t, 10*time.Second, "the dashboard to quit", func() bool { return !dash.alive() })
	// The relay takes the port over; the veto and the block hold.
	if out := aiTries(t, ai, "configure", ws); out["error"] != "revoked_by_user" {
		t.Fatalf("configure after the takeover: %v", out)
	}
	if out := aiTries(t, ai, "interact", map[string]any{"action": "list_states"}); out["error"] != "ai_web_pilot_disabled" ||
		!strings.Contains(out["message"].(string), "blocked") {
		t.Fatalf("interact after the takeover: %v", out)
	}
	again := startDashboard(t, port, "veto-again")
	again.await(10*time.Second, "attached to a running server", "restored: ws_mode revoked · pilot blocked", "pilot: BLOCKED by you")
}
