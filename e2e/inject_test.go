//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestPageScriptsSeeNoCaptureGlobals: the page-world scripts share state
// while they start, and leave nothing on window for the page; what the page
// sees is that of a page without them only because they ran and kept the
// names of what they wrap (its console line, fetch and socket are captured).
func TestPageScriptsSeeNoCaptureGlobals(t *testing.T) {
	r := newRig(t, "globals-agent", map[string]any{"log_level": "all"})
	r.open(t, "/capture.html")
	got, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[string](`[
		typeof window.__gasolineInject,
		Reflect.ownKeys(window).filter(k => /gasoline/i.test(String(k))).join(','),
		typeof console.log, console.log.name, typeof WebSocket.OPEN, String(fetch.name),
	].join('|')`))
	if err != nil {
		t.Fatal(err)
	}
	if got != "undefined||function|log|number|fetch" {
		t.Fatalf("what the page sees: %q", got)
	}
	waitFor(t, 20*time.Second, "the page's console line, fetch and socket captured", func() bool {
		return findContains(entries(observe(t, r.ai, map[string]any{"what": "logs"})), "message", "log-line") != nil &&
			findContains(entries(observe(t, r.ai, map[string]any{"what": "network", "url_filter": "/api/ok"})), "url", "x=1") != nil &&
			r.captured(t, map[string]any{"what": "websocket_events"}, "event", "open")
	})
}

// TestBurstBeyondTheQueueBound: a burst of 1,000 records in one task (the
// server's log cap; the page-world queue holds 2,000 before it flushes at
// once) loses nothing on its way through the page, content script and worker.
func TestBurstBeyondTheQueueBound(t *testing.T) {
	r := newRig(t, "burst-agent", map[string]any{"log_level": "all"})
	r.open(t, "/capture.html")
	// The page's own unhandled fetch failure must land before the cursor, or
	// it would count among the burst's entries.
	waitFor(t, 10*time.Second, "the page's own rejection", func() bool {
		return findContains(entries(observe(t, r.ai, map[string]any{"what": "errors"})), "message", "Failed to fetch") != nil
	})
	cursor := observe(t, r.ai, map[string]any{"what": "logs", "limit": 1})["cursor"]
	r.eval(t, `logBurst("burst", 999); console.log("burst-999")`) // one task: 1,000 records before any idle time
	var res map[string]any
	waitFor(t, 10*time.Second, "the whole burst", func() bool {
		res = observe(t, r.ai, map[string]any{"what": "logs", "after": cursor, "limit": 500})
		more, _ := res["more"].(float64)
		return len(entries(res))+int(more) >= 1000
	})
	// Delivery to the server may reorder batches; none may be lost or doubled.
	seen := map[any]bool{}
	for _, e := range entries(res) {
		var n int
		if _, err := fmt.Sscanf(fmt.Sprint(e["message"]), "burst-%d", &n); err != nil || n < 0 || n > 999 || seen[n] {
			t.Fatalf("unexpected or doubled entry %v", e["message"])
		}
		seen[n] = true
	}
	if more, _ := res["more"].(float64); len(seen)+int(more) != 1000 {
		t.Fatalf("%d entries and %v more, want 1000", len(seen), res["more"])
	}
}

// TestPoisonedToJSONAndDeepStacks: inject.js hands its events over as one
// JSON string, unless the page gave a built-in prototype a toJSON (which
// JSON.stringify would call on our entries): this page does, and its error
// still arrives whole. The error's stack, 40 frames deep, is cut to its
// first 25 lines.
func TestPoisonedToJSONAndDeepStacks(t *testing.T) {
	r := newRig(t, "tojson-agent", map[string]any{})
	r.open(t, "/capture.html")
	if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`(() => {
		Error.stackTraceLimit = 50;
		Object.prototype.toJSON = function () { return 'poisoned'; };
		const deep = (n) => (n === 0 ? new Error('deep-poisoned') : deep(n - 1));
		console.error('poisoned-page', deep(40));
		return true; })()`)); err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	waitFor(t, 10*time.Second, "the poisoned page's error", func() bool {
		e = find(entries(observe(t, r.ai, map[string]any{"what": "errors"})), "message", "poisoned-page")
		return e != nil
	})
	stack, _ := e["stack"].(string)
	if lines := strings.Split(stack, "\n"); len(lines) != 25 || lines[0] != "Error: deep-poisoned" || !strings.Contains(lines[24], "deep") {
		t.Errorf("stack of %d lines, want the first 25 (the message, then the deep frames):\n%s", len(lines), stack)
	}
	if args := fmt.Sprint(e["args"]); !strings.Contains(args, "Error: deep-poisoned") {
		t.Errorf("args %s", args)
	}
}
