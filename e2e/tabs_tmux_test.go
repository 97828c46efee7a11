//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// Two AIs with tabs of their own, in a real terminal: the header lists
// each with its tab; t shows the Actions pane one tab at a time, its rows
// marked with the AI that owns the tab; F frees that tab, and the other
// AI's action on it, refused as tab_owned before, runs.
func TestAITabsInTmux(t *testing.T) {
	port := freePort(t)
	os.Remove(filepath.Join(testHome, ".gasoline", "decisions-"+strconv.Itoa(port)+".json"))
	dash := startDashboardSized(t, 200, 40, port, "aitabs", "--pilot-approval", "auto")
	dash.await(20*time.Second, "server in this process")
	r := &rig{port: port}
	r.ai = mcpStdio(t, port, "agent-human-tab")
	r.site = fixtureServer(t)
	r.b = launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(port)))
	r.b.setCapture(t, map[string]any{})
	r.open(t, "/act.html")
	r.setPilot(t, true)
	a, b := mcpStdio(t, port, "agent-a"), mcpStdio(t, port, "agent-b")

	openTab := func(c mcpClient) int {
		t.Helper()
		out, isErr, err := callTool(c, "interact", map[string]any{"action": "new_tab", "url": r.site + "/act.html"})
		if err != nil || isErr {
			t.Fatalf("new_tab: %v %v", out, err)
		}
		return int(out["tab_id"].(float64))
	}
	click := func(c mcpClient, tab int) map[string]any {
		t.Helper()
		out, _, err := callTool(c, "interact", map[string]any{"action": "click", "text": "Add", "tab_id": tab})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tabA, tabB := openTab(a), openTab(b)
	// The header lists the AIs by tab.
	listed := func(aOwns bool) string {
		ta, tb := fmt.Sprintf("agent-a → tab %d (own)", tabA), fmt.Sprintf("agent-b → tab %d (own)", tabB)
		if !aOwns {
			ta = strings.TrimSuffix(ta, " (own)")
		}
		if tabB < tabA {
			return tb + ", " + ta
		}
		return ta + ", " + tb
	}
	dash.await(20*time.Second, "AI tabs: "+listed(true))
	if out := click(a, tabA); out["error"] != nil {
		t.Fatalf("a on its tab: %v", out)
	}
	if out := click(b, tabB); out["error"] != nil {
		t.Fatalf("b on its tab: %v", out)
	}
	dash.keys("4")
	dash.await(20*time.Second, "[agent-a] ", "[agent-b] ", "AI ▶ click")

	// t steps through the AIs' tabs and the human's tracked one, in order,
	// to a's: at most three presses (the tracked tab may be one of the AIs'
	// by then, as the extension follows the focused window).
	onA := fmt.Sprintf("tab %d only (t: next)", tabA)
	shown := false
	for range 3 {
		if dash.keys("t"); wait.Until(5*time.Second, func() bool { return strings.Contains(dash.screen(), onA) }) {
			shown = true
			break
		}
	}
	if !shown {
		t.Fatalf("t never showed tab %d; the screen:\n%s", tabA, dash.screen())
	}
	dash.await(10*time.Second, "[agent-a] ", "AI ▶ click")
	if s := dash.screen(); strings.Contains(s, "[agent-b]") {
		t.Fatalf("tab %d shows agent-b's rows:\n%s", tabA, s)
	}

	// b may not act on a's tab until the human frees it.
	if out := click(b, tabA); out["error"] != "tab_owned" {
		t.Fatalf("b on a's tab: %v", out)
	}
	dash.keys("F")
	dash.await(10*time.Second, fmt.Sprintf("freed tab %d: agent-a no longer owns it", tabA),
		"AI tabs: "+listed(false))
	if out := click(b, tabA); out["error"] != nil {
		t.Fatalf("b on the freed tab: %v", out)
	}
	freed := false
	for _, l := range auditOf(t, port) {
		freed = freed || (l["event"] == "tab_freed" && l["source"] == "human" && l["tab"] == float64(tabA))
	}
	if !freed {
		t.Fatal("no tab_freed line of the human's in the audit")
	}
}
