//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestFirefoxReplayTheHumansFlow: the same loop in Firefox: the human's
// flow (a quantity, a password, Add, a failing Checkout) replayed after the
// fix, the password skipped, the checkout's 200 in the answer, compare
// fixed; without the Checkout button the replay stops at that step.
func TestFirefoxReplayTheHumansFlow(t *testing.T) {
	r := newFoxRig(t, "ff-replay-agent", map[string]any{"action_replay": true})
	page := r.open(t, "/replay-shop.html")
	r.setPilot(t, true)
	waitFor(t, 10*time.Second, "the Checkout button", func() bool {
		v, err := r.f.eval(r.f.tab, `!!document.getElementById('checkout')`)
		return err == nil && v == true
	})
	r.f.click(t, r.f.tab, "#qty")
	r.f.typeText(t, r.f.tab, "3")
	r.f.click(t, r.f.tab, "#pw")
	r.f.typeText(t, r.f.tab, "hunter2")
	r.f.click(t, r.f.tab, "#add")
	r.f.click(t, r.f.tab, "#checkout")
	waitFor(t, 10*time.Second, "the human's checkout click", func() bool {
		return find(entries(observe(t, r.ai, map[string]any{"what": "actions"})), "selector", "#checkout") != nil
	})
	waitFor(t, 10*time.Second, "the failed checkout", func() bool {
		return len(entries(observe(t, r.ai, map[string]any{"what": "network", "url_filter": "/api/checkout", "status_min": 500}))) == 1
	})
	start := analyze(t, r.ai, map[string]any{"target": "verify", "action": "start", "name": "checkout"})
	id := start["session_id"].(string)
	analyze(t, r.ai, map[string]any{"target": "verify", "action": "watch", "session_id": id})
	post(t, r.site+"/api/shop-fix")
	cursor := observe(t, r.ai, map[string]any{"what": "network", "limit": 1})["cursor"]

	out, isErr := r.interact(t, map[string]any{"action": "replay"})
	if isErr {
		t.Fatalf("replay: %v", out)
	}
	var got []string
	for _, s := range out["steps"].([]any) {
		st := s.(map[string]any)
		got = append(got, fmt.Sprintf("%v %v %v", st["action"], st["target"], st["result"]))
	}
	want := []string{"navigate " + page + " ok", "click #qty ok", "type #qty ok", "click #pw ok", "type #pw skipped", "click #add ok", "click #checkout ok"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("steps: %v\nwant %v", got, want)
	}
	waitFor(t, 10*time.Second, "the checkout's 200", func() bool {
		return len(entries(observe(t, r.ai, map[string]any{"what": "network", "url_filter": "/api/checkout", "after": cursor}))) == 1
	})
	var res map[string]any
	waitFor(t, 10*time.Second, "a verdict", func() bool {
		res, _ = analyze(t, r.ai, map[string]any{"target": "verify", "action": "compare", "session_id": id})["result"].(map[string]any)
		return res != nil
	})
	if res["verdict"] != "fixed" {
		t.Fatalf("compare: %s", mustJSON(res))
	}
	post(t, r.site+"/api/shop-layout?checkout=0")
	out, isErr = r.interact(t, map[string]any{"action": "replay"})
	if msg, _ := out["message"].(string); !isErr || out["error"] != "not_found" || !strings.Contains(msg, "step 7 (click #checkout)") {
		t.Fatalf("replay without Checkout: %v", out)
	}
}
