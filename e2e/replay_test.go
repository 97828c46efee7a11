//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// replayRoutes are replay-shop.html's: a checkout that fails until the
// test fixes it (POST /api/shop-fix), and a layout whose Checkout button
// the test can take away (POST /api/shop-layout?checkout=0).
func replayRoutes(mux *http.ServeMux) {
	var fixed, noCheckout atomic.Bool
	mux.HandleFunc("POST /api/shop-fix", func(w http.ResponseWriter, r *http.Request) { fixed.Store(true) })
	mux.HandleFunc("/api/shop-layout", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			noCheckout.Store(r.URL.Query().Get("checkout") == "0")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"checkout":%v}`, !noCheckout.Load())
	})
	mux.HandleFunc("POST /api/checkout", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !fixed.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":"payments down"}`)
			return
		}
		fmt.Fprint(w, `{"order":42}`)
	})
}

func post(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Post(url, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// The human shows the flow once (a quantity, a password, Add, Checkout that
// fails); the AI starts verify, watches, the server is fixed, the AI
// replays: the same tab reaches the checkout again, the answer lists the
// steps and the 200 the last one caused, the password is not replayed and
// the answer says so, and compare says fixed. A page whose Checkout button
// is gone stops the replay at that step, naming it.
func TestReplayTheHumansFlow(t *testing.T) {
	r := newRig(t, "replay-agent", map[string]any{"action_replay": true})
	page := r.open(t, "/replay-shop.html")
	r.setPilot(t, true)
	humanChecksOut(t, r, chromedp.SendKeys(chromedp.CSS("#qty"), "3"), chromedp.SendKeys(chromedp.CSS("#pw"), "hunter2"))
	start := analyze(t, r.ai, map[string]any{"target": "verify", "action": "start", "name": "checkout"})
	id := start["session_id"].(string)
	analyze(t, r.ai, map[string]any{"target": "verify", "action": "watch", "session_id": id})
	post(t, r.site+"/api/shop-fix")
	cursor := observe(t, r.ai, map[string]any{"what": "network", "limit": 1})["cursor"]

	out := act(t, r, map[string]any{"action": "replay"})
	steps := out["steps"].([]any)
	var got []string
	for _, s := range steps {
		st := s.(map[string]any)
		got = append(got, fmt.Sprintf("%v %v %v", st["action"], st["target"], st["result"]))
	}
	want := []string{"navigate " + page + " ok", "type #qty ok", "type #pw skipped", "click #add ok", "click #checkout ok"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("steps: %v\nwant %v\n%v", got, want, out)
	}
	last := steps[len(steps)-1].(map[string]any)
	if !strings.Contains(mustJSON(last["caused"]), `"status":200`) || !strings.Contains(mustJSON(steps[2]), "secret") {
		t.Fatalf("the checkout's request, the password's skip: %v", out)
	}
	if got := textOf(t, r, "#status"); got != "Ordered" || textOf(t, r, "#cart") != "3 in cart" {
		t.Fatalf("the page after the replay: %q, %q", got, textOf(t, r, "#cart"))
	}
	// The page's capture of the checkout (with its body) may land after the answer, which had it from the browser.
	r.awaitCaptured(t, map[string]any{"what": "network", "url_filter": "/api/checkout", "after": cursor}, 1)
	if res := r.compareUntilVerdict(t, id); res["verdict"] != "fixed" {
		t.Fatalf("compare after the replay: %s", mustJSON(res))
	}
	var audited int
	for _, l := range auditOf(t, r.port) {
		if l["replay_id"] == out["replay_id"] {
			audited++
		}
	}
	if audited != len(want) {
		t.Fatalf("%d audit lines carry the replay's id, want %d", audited, len(want))
	}

	post(t, r.site+"/api/shop-layout?checkout=0")
	fail := refused(t, r, map[string]any{"action": "replay"}, "not_found", "step 5 (click #checkout)")
	if msg := fail["message"].(string); !strings.Contains(msg, "Replay shop") {
		t.Fatalf("the failure names what the page showed: %s", msg)
	}
}

// TestVerifyWatchReplays: watch with replay does both in one call — the
// fix in, the human's flow replayed, and compare says fixed.
func TestVerifyWatchReplays(t *testing.T) {
	r := newRig(t, "verify-replay-agent", map[string]any{"action_replay": true})
	r.open(t, "/replay-shop.html")
	r.setPilot(t, true)
	humanChecksOut(t, r, chromedp.SendKeys(chromedp.CSS("#qty"), "2"))
	id := analyze(t, r.ai, map[string]any{"target": "verify", "action": "start", "name": "checkout"})["session_id"].(string)
	if out, isErr, _ := callTool(r.ai, "analyze", map[string]any{"target": "verify", "action": "start", "replay": true}); !isErr || out["error"] != "invalid_param" {
		t.Fatalf("replay with start: %v", out)
	}
	post(t, r.site+"/api/shop-fix")
	cursor := observe(t, r.ai, map[string]any{"what": "network", "limit": 1})["cursor"]
	out := analyze(t, r.ai, map[string]any{"target": "verify", "action": "watch", "session_id": id, "replay": true})
	steps, _ := field(out, "replay", "steps").([]any)
	if field(out, "watch") == nil || len(steps) != 4 || !strings.Contains(mustJSON(steps[3]), `"status":200`) {
		t.Fatalf("watch with replay: %s", mustJSON(out))
	}
	r.awaitCaptured(t, map[string]any{"what": "network", "url_filter": "/api/checkout", "after": cursor}, 1)
	if res := r.compareUntilVerdict(t, id); res["verdict"] != "fixed" {
		t.Fatalf("compare after watch with replay: %s", mustJSON(res))
	}
}

// humanChecksOut is the human's flow on the shop: fill (the fields given),
// Add, Checkout, whose 500 is captured before it returns.
func humanChecksOut(t *testing.T, r *rig, fill ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	steps := append([]chromedp.Action[chromedp.Void]{chromedp.WaitVisible(chromedp.CSS("#checkout"))}, fill...)
	steps = append(steps, chromedp.Click(chromedp.CSS("#add")), chromedp.Click(chromedp.CSS("#checkout")))
	if err := chromedp.Do(r.b.ctx, steps...); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the human's checkout click", func() bool {
		return find(entries(observe(t, r.ai, map[string]any{"what": "actions"})), "selector", "#checkout") != nil
	})
	r.awaitCaptured(t, map[string]any{"what": "network", "url_filter": "/api/checkout", "status_min": 500}, 1)
}
