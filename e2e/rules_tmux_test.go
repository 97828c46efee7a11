//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
)

// With --pilot-approval ask, a in the dashboard's overlay approves a call
// and makes a rule: five execute_js calls of one AI session on one origin
// run on one keypress, six audit lines name the rule (made + 5 approved);
// a call on another origin, or from a new AI session, still asks; x on
// the rule in the Overrides pane makes the next call ask again.
func TestApprovalRuleInTmux(t *testing.T) {
	dash, r := askingDashboard(t, "rules", "rule-agent", "40s")
	port := r.port
	origin := r.site // http://127.0.0.1:<port>

	type answer struct {
		out   map[string]any
		isErr bool
		err   error
	}
	act := func(c *client.Client, script string) chan answer {
		ch := make(chan answer, 1)
		go func() {
			out, isErr, err := callTool(c, "interact", map[string]any{"action": "execute_js", "script": script})
			ch <- answer{out, isErr, err}
		}()
		return ch
	}
	ran := func(ch chan answer, want any) {
		t.Helper()
		select {
		case a := <-ch:
			if a.err != nil || a.isErr || a.out["result"] != want {
				t.Fatalf("want %v: %+v", want, a)
			}
		case <-time.After(40 * time.Second):
			t.Fatalf("no answer in 40 s; the screen:\n%s", dash.screen())
		}
	}

	// Two calls wait; a on the first runs both, and three more run
	// without asking.
	first := act(r.ai, "1 + 1")
	dash.await(20*time.Second, "APPROVE? AI rule-agent wants to execute_js", "a = yes to every execute_js on "+origin)
	second := act(r.ai, "2 + 2")
	dash.await(20*time.Second, "2 waiting")
	dash.keys("a")
	ran(first, float64(2))
	ran(second, float64(4))
	for i := 3; i <= 5; i++ {
		ran(act(r.ai, strconv.Itoa(i)+" * 2"), float64(i*2))
	}
	lines := auditOf(t, port)
	var rule float64
	requested := 0
	for _, l := range lines {
		if l["event"] == "approval_rule_made" {
			rule, _ = l["rule_id"].(float64)
		}
		if l["event"] == "approval_requested" {
			requested++
		}
	}
	tied := 0
	for _, l := range lines {
		if rule != 0 && l["rule_id"] == rule {
			tied++
			if l["event"] != "approval_rule_made" && (l["event"] != "approval_decided" || l["result"] != "approved") {
				t.Errorf("a line naming the rule: %v", l)
			}
		}
	}
	if tied != 6 || requested != 2 {
		t.Fatalf("%d audit lines name rule %v (want 6: made + 5 approved), %d calls asked (want 2)", tied, rule, requested)
	}

	// Another origin asks.
	other := strings.Replace(origin, "127.0.0.1", "localhost", 1)
	navigate(t, r, other+"/pilot.html")
	got := act(r.ai, "6 * 2")
	dash.await(20*time.Second, "APPROVE? AI rule-agent wants to execute_js", "a = yes to every execute_js on "+other)
	dash.keys("y")
	ran(got, float64(12))

	// A new AI session has no rules, on the rule's origin.
	navigate(t, r, origin+"/pilot.html")
	fresh := mcpStdio(t, port, "rule-agent-2")
	got = act(fresh, "7 * 2")
	dash.await(20*time.Second, "APPROVE? AI rule-agent-2 wants to execute_js", "a = yes to every execute_js on "+origin)
	dash.keys("y")
	ran(got, float64(14))

	// x on the rule in the Overrides pane: the next call asks again.
	dash.keys("5")
	dash.keys("End")
	dash.await(20*time.Second, "APPROVAL RULES (1)", "› ", "rule "+strconv.Itoa(int(rule))+": execute_js on "+origin)
	dash.keys("x")
	dash.await(20*time.Second, "revoked rule "+strconv.Itoa(int(rule)))
	got = act(r.ai, "8 * 2")
	dash.await(20*time.Second, "APPROVE? AI rule-agent wants to execute_js")
	dash.keys("y")
	ran(got, float64(16))
	ended := 0
	for _, l := range auditOf(t, port) {
		if l["event"] == "approval_rule_ended" && l["rule_id"] == rule && l["result"] == "revoked" && l["source"] == "human" {
			ended++
		}
	}
	if ended != 1 {
		t.Fatalf("%d lines say rule %v was revoked", ended, rule)
	}
}

// navigate moves the tracked tab to url and waits until the server has it.
func navigate(t *testing.T, r *rig, url string) {
	t.Helper()
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the tracked page "+url, func() bool {
		return observe(t, r.ai, map[string]any{"what": "page"})["url"] == url
	})
}

// auditOf is the shared audit log's lines written by the server on port.
func auditOf(t *testing.T, port int) []map[string]any {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(testHome, ".gasoline", "audit.jsonl"))
	var out []map[string]any
	for _, l := range strings.Split(string(b), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["port"] == float64(port) {
			out = append(out, m)
		}
	}
	return out
}
