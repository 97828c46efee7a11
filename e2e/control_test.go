//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/gasoline-dev/gasoline/features/wait"
)

func configure(t testing.TB, r *rig, settings any) map[string]any {
	t.Helper()
	out, isErr, err := callTool(r.ai, "configure", map[string]any{"action": "capture", "settings": settings})
	if err != nil || isErr {
		t.Fatalf("configure %v: %v %v", settings, err, out)
	}
	return out
}

func (r *rig) eval(t testing.TB, js string) {
	t.Helper()
	if err := chromedp.Do(r.b.ctx, chromedp.Evaluate[chromedp.Void](js)); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
}

// captured reports whether observe(args) holds an entry whose field is value.
func (r *rig) captured(t testing.TB, args map[string]any, field, value string) bool {
	return find(entries(observe(t, r.ai, args)), field, value) != nil
}

// probeUntilCaptured makes the page emit numbered probes until any of them
// is captured, and returns how long that took from start. Delivery is
// batched (~250 ms), so the one seen is usually an earlier probe.
func (r *rig) probeUntilCaptured(t testing.TB, start time.Time, within time.Duration, emit func(n int), seen func() bool) time.Duration {
	t.Helper()
	for n := 0; ; n++ {
		emit(n)
		if seen() {
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("no probe captured within %v", within)
		}
	}
}

// capturedPrefix reports whether observe(args) holds an entry whose field
// starts with prefix.
func (r *rig) capturedPrefix(t testing.TB, args map[string]any, field, prefix string) bool {
	for _, e := range entries(observe(t, r.ai, args)) {
		if s, ok := e[field].(string); ok && strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// TestAIOverridesTakeEffectInThePage: ws_mode and log_level set by the AI
// change what an already-open page captures (the log says how soon); reset stops it.
func TestAIOverridesTakeEffectInThePage(t *testing.T) {
	r := newRig(t, "control-agent", map[string]any{}) // the user's defaults: errors only, WS lifecycle
	r.open(t, "/capture.html")
	waitFor(t, 10*time.Second, "the socket to open", func() bool {
		return r.captured(t, map[string]any{"what": "websocket_events"}, "event", "open")
	})
	if r.captured(t, map[string]any{"what": "websocket_events"}, "data", "hello-ws") {
		t.Fatal("payload captured under the default lifecycle mode")
	}
	// The page's own onmessage is the socket's one message listener: ours is there only while
	// messages are captured (issue 12).
	if n := r.messageListeners(t); n != 1 {
		t.Fatalf("the socket has %d message listeners under the lifecycle mode, want the page's 1", n)
	}

	t0 := time.Now()
	configure(t, r, map[string]any{"ws_mode": "messages"})
	took := r.probeUntilCaptured(t, t0, 15*time.Second,
		func(n int) { r.eval(t, fmt.Sprintf(`wsSend("probe-%d")`, n)) },
		func() bool {
			return r.capturedPrefix(t, map[string]any{"what": "websocket_events", "direction": "outgoing"}, "data", "probe-")
		})
	t.Logf("ws_mode override took effect on an open socket in %v", took.Round(time.Millisecond))
	// The server echoes each probe: what the already-open socket receives is captured too.
	waitFor(t, 10*time.Second, "an echoed probe", func() bool {
		return r.capturedPrefix(t, map[string]any{"what": "websocket_events", "direction": "incoming"}, "data", "echo:probe-")
	})
	if n := r.messageListeners(t); n != 2 {
		t.Fatalf("the socket has %d message listeners with messages captured, want 2", n)
	}

	t1 := time.Now()
	configureAfterRateLimit(t, r, map[string]any{"log_level": "all"})
	took = r.probeUntilCaptured(t, t1, 15*time.Second,
		func(n int) { r.eval(t, fmt.Sprintf(`console.log("log-probe-%d")`, n)) },
		func() bool { return r.capturedPrefix(t, map[string]any{"what": "logs"}, "message", "log-probe-") })
	t.Logf("log_level override took effect in %v (including the 1 s rate limit)", took.Round(time.Millisecond))

	configureAfterRateLimit(t, r, "reset")
	waitFor(t, 10*time.Second, "the reset to reach the worker", func() bool {
		ok, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](`(async () => {
			const e = (await chrome.storage.local.get('gasoline_effective')).gasoline_effective;
			return e.ws_mode === 'lifecycle' && e.log_level === 'error'; })()`, chromedp.EvalAwaitPromise))
		return err == nil && ok
	})
	waitFor(t, 10*time.Second, "our message listener to go with the reset", func() bool { return r.messageListeners(t) == 1 })
	// What the page does after the reset is not captured; a marker that is
	// captured proves the pipeline had time to deliver it.
	r.eval(t, `wsSend("after-reset"); console.log("log-after-reset"); console.error("marker-after-reset"); wsClose()`)
	waitFor(t, 5*time.Second, "the markers", func() bool {
		return r.captured(t, map[string]any{"what": "errors"}, "message", "marker-after-reset") &&
			r.captured(t, map[string]any{"what": "websocket_events"}, "event", "close")
	})
	if r.captured(t, map[string]any{"what": "websocket_events"}, "data", "after-reset") ||
		r.captured(t, map[string]any{"what": "logs"}, "message", "log-after-reset") {
		t.Fatal("captured after reset")
	}
}

// messageListeners counts the "message" listeners on capture.html's socket.
func (r *rig) messageListeners(t testing.TB) int {
	t.Helper()
	tab := chromedp.FromContext(r.b.ctx).Target
	ws, err := cdp.Call(r.b.ctx, tab, runtime.Evaluate, runtime.EvaluateParams{Expression: "ws"})
	if err != nil || ws.ExceptionDetails != nil || ws.Result.ObjectID == "" {
		t.Fatalf("the page's socket: %v %v", err, ws)
	}
	defer cdp.Call(r.b.ctx, tab, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: ws.Result.ObjectID})
	got, err := cdp.Call(r.b.ctx, tab, domdebugger.GetEventListeners, domdebugger.GetEventListenersParams{ObjectID: ws.Result.ObjectID})
	if err != nil {
		t.Fatalf("the socket's listeners: %v", err)
	}
	n := 0
	for _, l := range got.Listeners {
		if l.Type == "message" {
			n++
		}
	}
	return n
}

// configureAfterRateLimit retries while the 1 s rate limit refuses (the
// server's own clock: a real binary's cannot be moved).
func configureAfterRateLimit(t testing.TB, r *rig, settings any) {
	t.Helper()
	var out map[string]any
	var err error
	if !wait.Until(3*time.Second, func() bool {
		var isErr bool
		out, isErr, err = callTool(r.ai, "configure", map[string]any{"action": "capture", "settings": settings})
		return (err == nil && !isErr) || out["error"] != "rate_limited"
	}) || err != nil || out["error"] != nil {
		t.Fatalf("configure %v: %v %v", settings, err, out)
	}
}

// TestHumanRevokesAnOverride: the human's veto stops the page capturing,
// the AI is refused and told, and the audit log has the human's line.
func TestHumanRevokesAnOverride(t *testing.T) {
	r := newRig(t, "veto-agent", map[string]any{})
	r.open(t, "/capture.html")
	waitFor(t, 10*time.Second, "the socket to open", func() bool {
		return r.captured(t, map[string]any{"what": "websocket_events"}, "event", "open")
	})
	configure(t, r, map[string]any{"ws_mode": "messages"})
	r.probeUntilCaptured(t, time.Now(), 15*time.Second,
		func(n int) { r.eval(t, fmt.Sprintf(`wsSend("held-%d")`, n)) },
		func() bool { return r.capturedPrefix(t, map[string]any{"what": "websocket_events"}, "data", "held-") })

	resp, err := humanPost(t, r.port, "/api/overrides/revoke", `{"setting":"ws_mode"}`)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("revoke: %v %v", err, resp)
	}
	resp.Body.Close()
	revoked := time.Now()
	// The AI's very next observe, whatever it reads, carries the alert.
	if a := mustJSON(observe(t, r.ai, map[string]any{"what": "logs"})["alerts"]); !strings.Contains(a, `"type":"capture_revoked"`) || !strings.Contains(a, "ws_mode") {
		t.Fatalf("no revocation alert on the next observe: %s", a)
	}
	waitFor(t, 10*time.Second, "the revoke to reach the worker", func() bool {
		ok, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](`(async () =>
			(await chrome.storage.local.get('gasoline_effective')).gasoline_effective.ws_mode === 'lifecycle')()`, chromedp.EvalAwaitPromise))
		return err == nil && ok
	})
	t.Logf("revoke reached the extension in %v", time.Since(revoked).Round(time.Millisecond))
	r.eval(t, `wsSend("after-revoke"); wsClose()`)
	waitFor(t, 5*time.Second, "the close event", func() bool {
		return r.captured(t, map[string]any{"what": "websocket_events"}, "event", "close")
	})
	if r.captured(t, map[string]any{"what": "websocket_events"}, "data", "after-revoke") {
		t.Fatal("payload captured after the human revoked ws_mode")
	}

	// The veto is checked before the rate limit, so no need to wait it out.
	out, isErr, _ := callTool(r.ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages"}})
	if !isErr || out["error"] != "revoked_by_user" {
		t.Fatalf("configure after revoke: %v", out)
	}
	audit, _ := os.ReadFile(filepath.Join(testHome, ".gasoline", "audit.jsonl"))
	if !strings.Contains(string(audit), `"event":"capture_revoked","setting":"ws_mode"`) ||
		!strings.Contains(string(audit), `"agent":"veto-agent"`) {
		t.Fatalf("audit log lacks the human's line or the agent:\n%s", audit)
	}
}

// TestScreenshotOnError: with screenshot_on_error on, a thrown error yields
// a PNG on disk that observe names; with it off, none.
func TestScreenshotOnError(t *testing.T) {
	r := newRig(t, "shot-agent", map[string]any{})
	r.open(t, "/capture.html")
	dir := filepath.Join(testHome, ".gasoline", "screenshots")
	before := countPNG(dir)

	r.eval(t, `throwLater("no-shot-error")`)
	waitFor(t, 5*time.Second, "the error without a screenshot", func() bool {
		return findContains(entries(observe(t, r.ai, map[string]any{"what": "errors"})), "message", "no-shot-error") != nil
	})
	screenshotOnError(t, r)
	r.eval(t, `throwLater("shot-error")`)
	shot := awaitErrorScreenshot(t, r, "shot-error", 10*time.Second)
	b, err := os.ReadFile(shot)
	if err != nil || !strings.HasPrefix(string(b), "\x89PNG") || filepath.Dir(shot) != dir {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	// With the setting off there was none: the earlier error has no
	// screenshot, and exactly one PNG is new (a stray one would also have
	// throttled this one away).
	if e := findContains(entries(observe(t, r.ai, map[string]any{"what": "errors"})), "message", "no-shot-error"); e["screenshot"] != nil {
		t.Fatalf("screenshot while off: %v", e)
	}
	if n := countPNG(dir); n != before+1 {
		t.Fatalf("%d new screenshots, want 1", n-before)
	}
}

// screenshotOnError turns screenshot_on_error on as the AI would, and waits until the worker has it.
// capture.html's own errors are captured first, the rejection of its fetch to an unreachable port
// included: that one comes when the connection is refused, and if it came after the setting it would
// be the one screenshot of the next 5 s (at most one every 5 s), not the test's error.
func screenshotOnError(t testing.TB, r *rig) {
	t.Helper()
	waitFor(t, 10*time.Second, "capture.html's own errors", func() bool {
		return findContains(entries(observe(t, r.ai, map[string]any{"what": "errors"})), "message", "Failed to fetch") != nil
	})
	configure(t, r, map[string]any{"screenshot_on_error": true})
	waitFor(t, 10*time.Second, "the override to reach the worker", func() bool {
		ok, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](`(async () =>
			(await chrome.storage.local.get('gasoline_effective')).gasoline_effective.screenshot_on_error === true)()`, chromedp.EvalAwaitPromise))
		return err == nil && ok
	})
}

// awaitErrorScreenshot returns the file of the screenshot named on the error whose message holds
// msg; on a timeout it says what the worker's screenshots did (sent, attached, skipped, failed, why).
func awaitErrorScreenshot(t testing.TB, r *rig, msg string, within time.Duration) string {
	t.Helper()
	var shot string
	if !wait.Until(within, func() bool {
		e := findContains(entries(observe(t, r.ai, map[string]any{"what": "errors"})), "message", msg)
		if e == nil || e["screenshot"] == nil {
			return false
		}
		shot = e["screenshot"].(string)
		return true
	}) {
		stats, err := chromedp.Run(r.b.sw, chromedp.Evaluate[map[string]any](`globalThis.status().screenshots`))
		t.Fatalf("timed out after %v waiting for the screenshot named on the error; the worker's screenshots: %v %v; the errors: %s", within, stats, err,
			clipJSON(observe(t, r.ai, map[string]any{"what": "errors"}), 1500))
	}
	return shot
}

func countPNG(dir string) int {
	m, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	return len(m)
}
