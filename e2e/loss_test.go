//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
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
		deadline := time.Now().Add(30 * time.Second)
		for {
			got = userActions(t, r)
			if strings.Join(got, "\n") == want || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if g := strings.Join(got, "\n"); g != want {
			t.Fatalf("%d actions recorded, want %d in order:\n%s", len(got), 3*loads, g)
		}
	}
}

// TestWorkerStoppedMidStream: a page logs a numbered error every 100 ms;
// the extension's service worker is stopped through CDP 3 s in, while it
// holds a busy page's events (a flush waits up to 2 s): all 120 reach the
// server.
func TestWorkerStoppedMidStream(t *testing.T) {
	r := newRig(t, "stopped-worker", map[string]any{})
	r.open(t, "/capture.html")
	r.eval(t, `(() => { let i = 0; const t = setInterval(() => { console.error("tick-" + i); if (++i === 120) clearInterval(t); }, 100); })()`)
	time.Sleep(3 * time.Second) // the condition: the worker is stopped mid-stream, not a wait for an event
	r.b.killWorker(t)
	var got map[int]bool
	deadline := time.Now().Add(40 * time.Second)
	for time.Now().Before(deadline) {
		got = numbered(t, r.ai, "tick")
		if len(got) == 120 {
			// The journal holds only what is not delivered yet.
			page := r.openExtensionPage(t, "options.html")
			waitFor(t, 10*time.Second, "the journal to be emptied", func() bool {
				n, err := chromedp.Run(page, chromedp.Evaluate[int](`(async () => Object.keys(await chrome.storage.session.get(null)).filter((k) => k.startsWith('gasoline_j:')).length)()`, chromedp.EvalAwaitPromise))
				return err == nil && n == 0
			})
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	var missing []int
	for i := range 120 {
		if !got[i] {
			missing = append(missing, i)
		}
	}
	t.Fatalf("%d/120 errors reached the server; missing %v", len(got), missing)
}
