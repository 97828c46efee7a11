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

// askingDashboard is a dashboard in tmux hosting a server started with
// --pilot-approval ask (no decisions kept from an earlier run on its port),
// an AI session named agent, and Chromium on the pilot fixture with the
// pilot on; timeout is --approval-timeout.
func askingDashboard(t *testing.T, name, agent, timeout string) (*term, *rig) {
	t.Helper()
	port := freePort(t)
	os.Remove(filepath.Join(testHome, ".gasoline", "decisions-"+strconv.Itoa(port)+".json"))
	dash := startDashboard(t, port, name, "--pilot-approval", "ask", "--approval-timeout", timeout)
	dash.await(20*time.Second, "server in this process")
	r := &rig{port: port}
	r.ai = mcpStdio(t, port, agent)
	r.site = fixtureServer(t)
	r.b = launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(port)))
	r.b.setCapture(t, map[string]any{})
	r.open(t, "/pilot.html")
	r.setPilot(t, true)
	dash.await(20*time.Second, "asks you first")
	return dash, r
}

// With --pilot-approval ask, every pilot action waits for the human at the
// dashboard in a real terminal: y runs the script in the page and its value
// comes back, n denies with the human's reason, silence times out.
func TestAskBeforeActingInTmux(t *testing.T) {
	dash, r := askingDashboard(t, "ask", "approval-agent", "3s")

	type answer struct {
		out   map[string]any
		isErr bool
	}
	act := func(script string) chan answer {
		ch := make(chan answer, 1)
		go func() {
			out, isErr, _ := callTool(r.ai, "interact", map[string]any{"action": "execute_js", "script": script})
			ch <- answer{out, isErr}
		}()
		return ch
	}

	got := act("window.appState.user")
	dash.await(5*time.Second, "APPROVE? AI approval-agent wants to execute_js", "window.appState.user", "/pilot.html")
	dash.keys("y")
	if a := <-got; a.isErr || a.out["result"] != "ada" {
		t.Fatalf("approved: %v", a)
	}

	got = act("document.cookie")
	dash.await(5*time.Second, "document.cookie")
	dash.keys("n")
	dash.keys("-l", "no cookies")
	dash.keys("Enter")
	if a := <-got; !a.isErr || a.out["error"] != "denied_by_user" || !strings.Contains(a.out["message"].(string), "no cookies") {
		t.Fatalf("denied: %v", a)
	}

	if a := <-act("1 + 1"); !a.isErr || a.out["error"] != "approval_timeout" {
		t.Fatalf("unanswered: %v", a)
	}
	audit, _ := os.ReadFile(filepath.Join(testHome, ".gasoline", "audit.jsonl"))
	for _, want := range []string{`"result":"approved"`, `"reason":"no cookies"`, `"result":"denied"`, `"result":"timeout"`} {
		if !strings.Contains(string(audit), want) {
			t.Errorf("the audit log lacks %s", want)
		}
	}
}
