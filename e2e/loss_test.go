//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// greetActions drives greet.html through CDP input right after its load, as
// a user does: Tab and type a first name, Tab and type a last name, click
// Greet. The page's script sees input, change (on each blur) and click.
func greetActions(ctx context.Context, n int) error {
	tab := chromedp.FromContext(ctx).Target
	key := func() error {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			if _, err := cdp.Call(ctx, tab, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: typ, Key: "Tab", Code: "Tab", WindowsVirtualKeyCode: 9}); err != nil {
				return err
			}
		}
		return nil
	}
	text := func(s string) error {
		_, err := cdp.Call(ctx, tab, input.InsertText, input.InsertTextParams{Text: s})
		return err
	}
	click := func() error {
		for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
			if _, err := cdp.Call(ctx, tab, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: typ, X: 110, Y: 105, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1}); err != nil {
				return err
			}
		}
		return nil
	}
	for _, step := range []func() error{
		key, func() error { return text(fmt.Sprintf("Ada-%d", n)) },
		key, func() error { return text(fmt.Sprintf("Lovelace-%d", n)) },
		click,
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// wantGreet is what loads 0..n-1 of greetActions must leave in `observe
// actions`, oldest first, navigations aside.
func wantGreet(n int) []string {
	var out []string
	for i := range n {
		out = append(out,
			fmt.Sprintf("input #first Ada-%d", i),
			fmt.Sprintf("input #last Lovelace-%d", i),
			"click #greet")
	}
	return out
}

// userActions is the recorded actions but navigations, oldest first, each as
// "type selector value".
func userActions(t testing.TB, r *rig) []string {
	t.Helper()
	es := entries(observe(t, r.ai, map[string]any{"what": "actions", "url_filter": "greet.html", "limit": 500}))
	var out []string
	for i := len(es) - 1; i >= 0; i-- { // newest first
		e := es[i]
		if e["type"] == "navigation" {
			continue
		}
		s := fmt.Sprintf("%v %v", e["type"], e["selector"])
		if v, ok := e["value"]; ok {
			s += fmt.Sprintf(" %v", v)
		}
		if e["type"] == "keypress" {
			s += fmt.Sprintf(" %v", e["text"])
		}
		out = append(out, s)
	}
	return out
}

// TestActionsRightAfterLoad: the first page of a freshly started browser,
// then 19 more loads, each followed at once by two fills and a click (CDP
// input): all 60 actions reach the server, in order. Five fresh browsers.
func TestActionsRightAfterLoad(t *testing.T) {
	const browsers, loads = 5, 20
	for round := range browsers {
		t.Run(fmt.Sprintf("browser-%d", round), func(t *testing.T) { greetLoads(t, loads) })
	}
}

// greetLoads runs greetActions after each of n loads of greet.html in a
// fresh browser and expects every action at the server, in order.
func greetLoads(t *testing.T, loads int) {
	r := newRig(t, "early-actions", map[string]any{})
	{
		for i := range loads {
			if err := chromedp.Do(r.b.ctx, chromedp.Navigate(fmt.Sprintf("%s/greet.html?load=%d", r.site, i))); err != nil {
				t.Fatal(err)
			}
			if err := greetActions(r.b.ctx, i); err != nil {
				t.Fatalf("load %d: %v", i, err)
			}
		}
		want := strings.Join(wantGreet(loads), "\n")
		var got []string
		wait.Until(30*time.Second, func() bool { got = userActions(t, r); return strings.Join(got, "\n") == want })
		if g := strings.Join(got, "\n"); g != want {
			t.Fatalf("%d actions recorded, want %d in order:\n%s", len(got), 3*loads, g)
		}
	}
}

// TestWorkerStoppedMidStream: a page logs a numbered error every 100 ms;
// the extension's service worker is stopped through CDP once the page has
// logged 30 (3 s in), while it holds a busy page's events (a flush waits up
// to 2 s): all 120 reach the server.
func TestWorkerStoppedMidStream(t *testing.T) {
	r := newRig(t, "stopped-worker", map[string]any{})
	r.open(t, "/capture.html")
	r.eval(t, `window.__ticks = 0; window.__ticker = setInterval(() => { console.error("tick-" + window.__ticks); if (++window.__ticks === 120) clearInterval(window.__ticker); }, 100)`)
	waitFor(t, 20*time.Second, "the page's 30th error", func() bool {
		n, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[int](`window.__ticks`))
		return err == nil && n >= 30
	})
	r.b.killWorker(t)
	var got map[int]bool
	if wait.Until(40*time.Second, func() bool { got = numbered(t, r.ai, "tick"); return len(got) == 120 }) {
		// The journal holds only what is not delivered yet.
		page := r.openExtensionPage(t, "ui/options.html")
		waitFor(t, 10*time.Second, "the journal to be emptied", func() bool {
			n, err := chromedp.Run(page, chromedp.Evaluate[int](`(async () => Object.keys(await chrome.storage.session.get(null)).filter((k) => k.startsWith('gasoline_j:')).length)()`, chromedp.EvalAwaitPromise))
			return err == nil && n == 0
		})
		return
	}
	var missing []int
	for i := range 120 {
		if !got[i] {
			missing = append(missing, i)
		}
	}
	t.Fatalf("%d/120 errors reached the server; missing %v", len(got), missing)
}

// TestGeneratedTestFromActionsRightAfterLoad: a session whose typing and
// click come right after the load (the first page of a fresh browser)
// generates a test that runs green under @playwright/test.
func TestGeneratedTestFromActionsRightAfterLoad(t *testing.T) {
	r := newRig(t, "early-testgen", map[string]any{"network_bodies": true})
	// The rest of the content script comes 0.5 s after the load: the actions come before it.
	r.b.interceptInjections(t, `(o, run) => new Promise((ok) => setTimeout(ok, 500)).then(() => run(o))`)
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/greet.html")); err != nil {
		t.Fatal(err)
	}
	if err := greetActions(r.b.ctx, 0); err != nil {
		t.Fatal(err)
	}
	want := strings.Join(wantGreet(1), "\n")
	waitFor(t, 20*time.Second, "the three actions and the greeting request", func() bool {
		reqs := observe(t, r.ai, map[string]any{"what": "network", "url_filter": "/api/greet"})
		return strings.Join(userActions(t, r), "\n") == want && len(entries(reqs)) > 0
	})
	gen, isErr, err := callTool(r.ai, "generate", map[string]any{"format": "test", "name": "greet"})
	if err != nil || isErr {
		t.Fatalf("generate test: %v %v", err, gen)
	}
	script := gen["script"].(string)
	if !containsAll(script, "Ada-0", "Lovelace-0", "/api/greet") {
		t.Fatalf("generated test misses the flow:\n%s", script)
	}
	dir := playwrightDir(t)
	if err := os.WriteFile(filepath.Join(dir, gen["filename"].(string)), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := runPlaywright(dir); err != nil {
		t.Fatalf("generated test fails: %v\n%s\n%s", err, out, script)
	}
}

// TestHeldBatchAcrossBackForwardCache: the page logs 20 lines and is left
// at once (its content script still holds them in its batch) for another
// page, then comes back from the back/forward cache and logs 20 more:
// all 40 reach the server.
func TestHeldBatchAcrossBackForwardCache(t *testing.T) {
	r := newRig(t, "bfcache", map[string]any{"log_level": "all"})
	r.open(t, "/capture.html")
	settledLogs(t, r, r.ai)
	r.eval(t, `addEventListener('pageshow', (e) => { if (e.persisted) window.__restored = true; }); logBurst("bf-before", 20); location.href = "/other.html";`)
	waitFor(t, 10*time.Second, "the other page", func() bool {
		u, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[string](`location.pathname + document.readyState`))
		return err == nil && u == "/other.htmlcomplete"
	})
	r.eval(t, `history.back()`)
	waitFor(t, 10*time.Second, "capture.html back from the back/forward cache", func() bool {
		ok, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`window.__restored === true`))
		return err == nil && ok
	})
	r.eval(t, `logBurst("bf-after", 20)`)
	waitFor(t, 20*time.Second, "all 40 lines", func() bool {
		return len(numbered(t, r.ai, "bf-before")) == 20 && len(numbered(t, r.ai, "bf-after")) == 20
	})
}

// TestForcedGapIsReported: twelve of a page's 30 errors are dropped between
// its content script and the worker; health and `observe logs` say 12
// console entries were lost on that tab. The page reloaded (a new document
// whose numbers start again) adds no loss.
func TestForcedGapIsReported(t *testing.T) {
	r := newRig(t, "forced-gap", map[string]any{})
	r.open(t, "/capture.html")
	world := contentWorld(t, r.b.ctx)
	if !inWorld(r.b.ctx, world, `(() => {
		const send = chrome.runtime.sendMessage.bind(chrome.runtime);
		chrome.runtime.sendMessage = (m, ...rest) => {
			if (m && m.type === 'events') m.events = m.events.filter((e) => !/^gap-(1[0-9]|2[01])$/.test(e.data.message || ''));
			return send(m, ...rest);
		};
		return true; })()`) {
		t.Fatal("could not put the filter in the content script's world")
	}
	r.eval(t, `for (let i = 0; i < 30; i++) console.error("gap-" + i)`)
	tab := observe(t, r.ai, map[string]any{"what": "page"})["tab"]
	// "between" two seconds, or "at" one when the gap fits in a second.
	want := fmt.Sprintf("12 console entries lost on tab %d ", int(tab.(float64)))
	waitFor(t, 20*time.Second, "the last error at the server", func() bool { return len(numbered(t, r.ai, "gap")) == 18 })
	h := observe(t, r.ai, map[string]any{"what": "health"})
	lost, _ := h["lost"].(map[string]any)
	if lost == nil || lost["total"] != float64(12) || !strings.Contains(mustJSON(lost["recent"]), want) {
		t.Fatalf("health lost = %v, want 12 and %q", h["lost"], want)
	}
	logs := observe(t, r.ai, map[string]any{"what": "logs", "limit": 100})
	if !strings.Contains(mustJSON(logs["lost"]), want) {
		t.Fatalf("observe logs lost = %v, want %q", logs["lost"], want)
	}

	// A new document: its numbers start at 1 again, which is no loss.
	if err := chromedp.Do(r.b.ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	r.eval(t, `for (let i = 0; i < 5; i++) console.error("fresh-" + i)`)
	waitFor(t, 20*time.Second, "the new document's errors", func() bool { return len(numbered(t, r.ai, "fresh")) == 5 })
	if l, _ := observe(t, r.ai, map[string]any{"what": "health"})["lost"].(map[string]any); l["total"] != float64(12) {
		t.Fatalf("after a new document, lost = %v, want still 12", l)
	}
}

// TestMessageRefusedIsSentAgain: a message from the content script that the
// worker did not take (it was stopping) goes again: the page's 10 errors
// all arrive, and nothing is counted lost.
func TestMessageRefusedIsSentAgain(t *testing.T) {
	r := newRig(t, "refused-message", map[string]any{})
	r.open(t, "/capture.html")
	world := contentWorld(t, r.b.ctx)
	if !inWorld(r.b.ctx, world, `(() => {
		const send = chrome.runtime.sendMessage.bind(chrome.runtime);
		let refused = 0;
		chrome.runtime.sendMessage = (m, ...rest) => {
			if (m && m.type === 'events' && m.events.some((e) => /^again-/.test(e.data.message || '')) && refused++ < 2) {
				return Promise.reject(new Error('Could not establish connection. Receiving end does not exist.'));
			}
			return send(m, ...rest);
		};
		return true; })()`) {
		t.Fatal("could not put the refusal in the content script's world")
	}
	r.eval(t, `for (let i = 0; i < 10; i++) console.error("again-" + i)`)
	waitFor(t, 20*time.Second, "the 10 errors at the server", func() bool { return len(numbered(t, r.ai, "again")) == 10 })
	if l := observe(t, r.ai, map[string]any{"what": "health"})["lost"]; l != nil {
		t.Fatalf("lost = %v, want none", l)
	}
}

// TestActionsBringTheMissedContentScript: the worker's run of the content
// script at the load fails, and the page records nothing else; the user's
// typing alone brings the rest of the content script, which records it.
func TestActionsBringTheMissedContentScript(t *testing.T) {
	r := newRig(t, "missed-actions", map[string]any{})
	r.b.interceptInjections(t, refuseFirstInjection)
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/greet.html")); err != nil {
		t.Fatal(err)
	}
	tab := chromedp.FromContext(r.b.ctx).Target
	for _, step := range []func() error{
		func() error {
			_, err := cdp.Call(r.b.ctx, tab, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: "Tab", Code: "Tab", WindowsVirtualKeyCode: 9})
			return err
		},
		func() error {
			_, err := cdp.Call(r.b.ctx, tab, input.InsertText, input.InsertTextParams{Text: "Solo"})
			return err
		},
		func() error {
			_, err := cdp.Call(r.b.ctx, tab, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: "Tab", Code: "Tab", WindowsVirtualKeyCode: 9})
			return err
		},
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 20*time.Second, "the typing at the server", func() bool {
		return strings.Join(userActions(t, r), "\n") == "input #first Solo"
	})
	if n, err := chromedp.Run(r.b.sw, chromedp.Evaluate[int](`globalThis.__refused`)); err != nil || n != 1 {
		t.Fatalf("the worker's run at the load was not the one refused (%d, %v): the test proves nothing", n, err)
	}
}

// TestFrozenPageHandsOverItsBatch: a page frozen (as a background tab is)
// right after it logged 20 lines runs no timers; what its scripts held goes
// when it is frozen, so the 20 reach the server while it stays frozen.
func TestFrozenPageHandsOverItsBatch(t *testing.T) {
	r := newRig(t, "frozen", map[string]any{"log_level": "all"})
	r.open(t, "/capture.html")
	settledLogs(t, r, r.ai)
	tab := chromedp.FromContext(r.b.ctx).Target
	r.eval(t, `logBurst("frz", 20)`)
	if _, err := cdp.Call(r.b.ctx, tab, page.SetWebLifecycleState, page.SetWebLifecycleStateParams{State: page.SetWebLifecycleStateStateFrozen}); err != nil {
		t.Fatal(err)
	}
	defer cdp.Call(r.b.ctx, tab, page.SetWebLifecycleState, page.SetWebLifecycleStateParams{State: page.SetWebLifecycleStateStateActive})
	waitFor(t, 15*time.Second, "the 20 lines from the frozen page", func() bool { return len(numbered(t, r.ai, "frz")) == 20 })
}

// TestEnterAndEscapeRecorded: Enter in a field and Escape are recorded as
// key presses after the typing before them; Enter on a button is its click.
func TestEnterAndEscapeRecorded(t *testing.T) {
	r := newRig(t, "keys", map[string]any{})
	r.open(t, "/greet.html")
	tab := chromedp.FromContext(r.b.ctx).Target
	key := func(k, code string, vk int64, text string) {
		t.Helper()
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeKeyDown, input.DispatchKeyEventTypeKeyUp} {
			p := input.DispatchKeyEventParams{Type: typ, Key: k, Code: code, WindowsVirtualKeyCode: vk}
			if typ == input.DispatchKeyEventTypeKeyDown {
				p.Text = text
			}
			if _, err := cdp.Call(r.b.ctx, tab, input.DispatchKeyEvent, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	key("Tab", "Tab", 9, "")
	if _, err := cdp.Call(r.b.ctx, tab, input.InsertText, input.InsertTextParams{Text: "Hi"}); err != nil {
		t.Fatal(err)
	}
	key("Enter", "Enter", 13, "\r")
	key("Escape", "Escape", 27, "")
	key("Tab", "Tab", 9, "")
	key("Tab", "Tab", 9, "") // to the button
	key("Enter", "Enter", 13, "\r")
	want := "input #first Hi\nkeypress #first Enter\nkeypress #first Escape\nclick #greet"
	waitFor(t, 20*time.Second, "the keys at the server", func() bool {
		return strings.Join(userActions(t, r), "\n") == want
	})
}

// TestActionsOfAPageLeftEarly: the rest of the content script is slow to
// come (3 s after the load), and the page is left right after the user
// typed and clicked: content/start.js hands the actions to the worker, and
// all three reach the server, in order.
func TestActionsOfAPageLeftEarly(t *testing.T) {
	r := newRig(t, "left-early", map[string]any{})
	r.b.interceptInjections(t, `(o, run) => new Promise((ok) => setTimeout(ok, 3000)).then(() => run(o))`)
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/greet.html")); err != nil {
		t.Fatal(err)
	}
	if err := greetActions(r.b.ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/other.html")); err != nil {
		t.Fatal(err)
	}
	want := strings.Join(wantGreet(1), "\n")
	var got string
	waitFor(t, 20*time.Second, "the three actions of the page left", func() bool {
		got = strings.Join(userActions(t, r), "\n")
		return got == want
	})
}
