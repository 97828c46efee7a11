//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Issue 58 row 9: with the default log_level (error), a page's
// console.warn and console.log are not captured, and observe logs says so:
// how many of each, and the setting that left them out. Then log_level
// warn captures the warn, and only the log is counted as left out.
func TestObserveLogsSaysWhatLogLevelLeftOut(t *testing.T) {
	r := newRig(t, "filtered-agent", map[string]any{"log_level": "error"})
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/capture.html")); err != nil {
		t.Fatal(err)
	}
	say := func(js string) {
		t.Helper()
		// After the page has the settings: the page captures everything until it knows them.
		waitFor(t, 10*time.Second, "the page's console calls", func() bool {
			ok, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](js))
			return err == nil && ok
		})
	}
	var got map[string]any
	want := func(filtered string) {
		t.Helper()
		waitFor(t, 20*time.Second, "observe logs to say "+filtered, func() bool {
			got = observe(t, r.ai, map[string]any{"what": "logs"})
			return mustJSON(got["filtered"]) == filtered
		})
	}
	// The page hears its settings before it is asked to speak: a first error
	// captured shows the gate is in place.
	say(`(() => { console.error("first-error"); return true; })()`)
	waitFor(t, 20*time.Second, "the first error", func() bool {
		return find(entries(observe(t, r.ai, map[string]any{"what": "logs"})), "message", "first-error") != nil
	})
	say(`(() => { console.warn("w1"); console.warn("w2"); console.log("l1"); return true; })()`)
	want(`{"log":1,"log_level":"error","warn":2}`)
	if find(entries(got), "message", "w1") != nil {
		t.Fatalf("a warn was captured at log_level error: %s", mustJSON(got))
	}

	callTool(r.ai, "configure", map[string]any{"action": "clear", "buffer": "logs"})
	r.b.setCapture(t, map[string]any{"log_level": "warn"})
	say(`(() => { console.warn("w3"); console.log("l2"); return true; })()`)
	want(`{"log":1,"log_level":"warn"}`)
	if find(entries(got), "message", "w3") == nil {
		t.Fatalf("the warn was not captured at log_level warn: %s", mustJSON(got))
	}
}
