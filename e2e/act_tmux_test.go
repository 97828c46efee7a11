//go:build e2e

package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// In ask mode a waiting click shows its target as the page names it on the
// dashboard, in a real terminal; a approves it and makes a rule, so the next
// click on the origin runs at once; x on the rule makes the next one ask.
func TestActionApprovalInTmux(t *testing.T) {
	dash, r := askingDashboard(t, "act", "act-tmux-agent", "40s")
	r.open(t, "/act.html")
	click := func() chan map[string]any {
		ch := make(chan map[string]any, 1)
		go func() {
			out, _, _ := callTool(r.ai, "interact", map[string]any{"action": "click", "text": "Add"})
			ch <- out
		}()
		return ch
	}
	got := func(ch chan map[string]any) map[string]any {
		t.Helper()
		select {
		case out := <-ch:
			return out
		case <-time.After(40 * time.Second):
			t.Fatalf("no answer in 40 s; the screen:\n%s", dash.screen())
		}
		return nil
	}
	first := click()
	dash.await(20*time.Second, "APPROVE? AI act-tmux-agent wants to click", `target: button "Add" #add`, "a = yes to every click on "+r.site)
	dash.keys("a")
	if out := got(first); field(out, "target", "selector") != "#add" {
		t.Fatalf("the approved click: %v", out)
	}
	if out := got(click()); field(out, "target", "selector") != "#add" {
		t.Fatalf("the click under the rule: %v", out)
	}
	var rule int
	for _, l := range auditOf(t, r.port) {
		if l["event"] == "approval_rule_made" {
			f, _ := l["rule_id"].(float64)
			rule = int(f)
		}
	}
	dash.keys("5")
	dash.keys("End")
	dash.await(20*time.Second, "rule "+strconv.Itoa(rule)+": click on "+r.site)
	dash.keys("x")
	dash.await(20*time.Second, "revoked rule "+strconv.Itoa(rule))
	third := click()
	dash.await(20*time.Second, "APPROVE? AI act-tmux-agent wants to click")
	dash.keys("y")
	got(third)
}

// In ask mode a replay waits once, its steps listed on the dashboard; y
// runs them; the header shows it under way, and x stops it between two steps.
func TestReplayApprovalInTmux(t *testing.T) {
	dash, r := askingDashboard(t, "replay", "replay-tmux-agent", "40s")
	r.b.setCapture(t, map[string]any{"action_replay": true})
	r.open(t, "/replay-shop.html")
	if err := chromedp.Do(r.b.ctx,
		chromedp.WaitVisible(chromedp.CSS("#checkout")),
		chromedp.SendKeys(chromedp.CSS("#qty"), "2"),
		chromedp.SendKeys(chromedp.CSS("#pw"), "hunter2"),
		chromedp.Click(chromedp.CSS("#add")),
	); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the human's click on Add", func() bool {
		return find(entries(observe(t, r.ai, map[string]any{"what": "actions"})), "selector", "#add") != nil
	})
	done := make(chan map[string]any, 1)
	go func() {
		out, _, _ := callTool(r.ai, "interact", map[string]any{"action": "replay"})
		done <- out
	}()
	dash.await(20*time.Second, "APPROVE? AI replay-tmux-agent wants to replay", "1. navigate "+r.site+"/replay-shop.html",
		`2. type #qty = "2"`, "3. type #pw (skipped", `4. click #add "Add"`)
	dash.keys("y")
	// x once the replay shows under way in the header: it stops before its next step.
	dash.await(20*time.Second, "replays your flow on tab", "x stops it")
	waitFor(t, 20*time.Second, "the replay's first step in the audit", func() bool {
		for _, l := range auditOf(t, r.port) {
			if l["replay_id"] != nil && l["event"] == "pilot_action" {
				return true
			}
		}
		return false
	})
	dash.keys("x")
	var out map[string]any
	select {
	case out = <-done:
	case <-time.After(40 * time.Second):
		t.Fatalf("no answer; the screen:\n%s", dash.screen())
	}
	if msg, _ := out["message"].(string); out["error"] != "revoked_by_user" || !strings.Contains(msg, "the human stopped the replay before step") {
		t.Fatalf("the replay after x: %v", out)
	}
}
