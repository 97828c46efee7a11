//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/gasoline-dev/gasoline/server"
)

// startPicker does what the popup's "Point at an element" does: the popup
// page, its note, its button (the popup then closes itself).
func startPicker(t *testing.T, b *browser, note string) {
	t.Helper()
	popup, cancel := chromedp.NewContext(b.ctx)
	defer cancel()
	if err := chromedp.Do(popup, chromedp.Navigate(server.ExtensionOrigin+"/ui/popup.html")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(popup, chromedp.Evaluate[bool](`document.getElementById('point-note').value = `+
		jsString(note)+`; document.getElementById('point').click(); true`)); err != nil && !strings.Contains(err.Error(), "closed") {
		t.Logf("the popup's click: %v", err)
	}
	waitFor(t, 15*time.Second, "the picker in the page", func() bool {
		on, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!document.querySelector('gasoline-picker')`))
		return err == nil && on
	})
	if _, err := cdp.Call(b.ctx, chromedp.FromContext(b.ctx).Target, page.BringToFront, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
}

func jsString(s string) string { return mustJSON(s) }

// The human points at an element: the popup's button starts the picker in
// the page, a hover outlines, a click picks (the page's own handlers do not
// run), and observe{what:"pointed"} has its selector, box, layout styles,
// text, the note and a screenshot; Esc cancels a second picker and sends
// nothing.
func TestElementPickerInChromium(t *testing.T) {
	r := newRig(t, "picker-agent", map[string]any{})
	b := r.b
	if err := chromedp.Do(b.ctx, chromedp.Navigate(r.site+"/capture.html")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the page tracked", func() bool {
		out, _, err := callTool(r.ai, "observe", map[string]any{"what": "page"})
		return err == nil && strings.Contains(mustJSON(out), "/capture.html")
	})
	box, err := chromedp.Run(b.ctx, chromedp.Evaluate[map[string]float64](`(() => {
		window.__pageHandlers = 0;
		const go = document.getElementById('go');
		for (const t of ['pointerdown', 'mousedown', 'mouseup', 'click']) {
			go.addEventListener(t, () => window.__pageHandlers++);
			document.addEventListener(t, () => window.__pageHandlers++);
		}
		const r = go.getBoundingClientRect();
		return { x: r.x, y: r.y, width: r.width, height: r.height };
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	startPicker(t, b, "this button is too wide")
	cx, cy := box["x"]+box["width"]/2, box["y"]+box["height"]/2
	mouse(t, b, input.DispatchMouseEventTypeMouseMoved, cx, cy)
	click(t, b, cx, cy)
	got := newestPointed(t, r.ai)
	el, _ := got["entry"].(map[string]any)
	gotBox, _ := el["box"].(map[string]any)
	styles, _ := el["styles"].(map[string]any)
	if got["kind"] != "element" || el["selector"] != "#go" || got["note"] != "this button is too wide" || el["text"] != "Go" ||
		!near(gotBox["width"], box["width"]) || !near(gotBox["height"], box["height"]) || !near(gotBox["x"], box["x"]) || !near(gotBox["y"], box["y"]) ||
		styles["display"] == nil || styles["margin-top"] == nil || styles["position"] == nil {
		t.Fatalf("pointed: %s (the button's box: %v)", mustJSON(got), box)
	}
	if shot, _ := el["screenshot"].(string); !strings.HasSuffix(shot, ".png") {
		t.Errorf("no screenshot: %s", mustJSON(el))
	}
	handlers, err := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`window.__pageHandlers + (document.querySelector('gasoline-picker') ? 100 : 0)`))
	if err != nil || handlers != 0 {
		t.Fatalf("the page's handlers ran %v times, or the picker stayed (+100): %v", handlers, err)
	}

	// Esc cancels: the picker goes, nothing is sent, the page saw no key.
	startPicker(t, b, "")
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
		if _, err := cdp.Call(b.ctx, chromedp.FromContext(b.ctx).Target, input.DispatchKeyEvent,
			input.DispatchKeyEventParams{Type: typ, Key: "Escape", Code: "Escape", WindowsVirtualKeyCode: 27}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 10*time.Second, "the picker gone", func() bool {
		on, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!document.querySelector('gasoline-picker')`))
		return err == nil && !on
	})
	click(t, b, cx, cy)
	out := observe(t, r.ai, map[string]any{"what": "pointed"})
	if n := len(entries(out)); n != 1 {
		t.Fatalf("after Esc %d entries: %s", n, clipJSON(out, 2000))
	}
}

// mouse sends one CDP mouse event to the page, as a real pointer does.
func mouse(t *testing.T, b *browser, typ input.DispatchMouseEventType, x, y float64) {
	t.Helper()
	p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y}
	if typ != input.DispatchMouseEventTypeMouseMoved {
		p.Button, p.Buttons, p.ClickCount = input.MouseButtonLeft, 1, 1
	}
	if _, err := cdp.Call(b.ctx, chromedp.FromContext(b.ctx).Target, input.DispatchMouseEvent, p); err != nil {
		t.Fatal(err)
	}
}

func click(t *testing.T, b *browser, x, y float64) {
	t.Helper()
	mouse(t, b, input.DispatchMouseEventTypeMousePressed, x, y)
	mouse(t, b, input.DispatchMouseEventTypeMouseReleased, x, y)
}

// near compares a box's coordinate as sent (to a tenth of a pixel) with the page's.
func near(got any, want float64) bool {
	f, ok := got.(float64)
	return ok && f-want < 0.1 && want-f < 0.1
}

// newestPointed waits for observe{what:"pointed"} to have an entry and
// returns the newest.
func newestPointed(t testing.TB, ai mcpClient) map[string]any {
	t.Helper()
	var got map[string]any
	waitFor(t, 20*time.Second, "observe{what:\"pointed\"} to have the element", func() bool {
		out, _, err := callTool(ai, "observe", map[string]any{"what": "pointed"})
		if err != nil || len(entries(out)) == 0 {
			return false
		}
		got = entries(out)[0]
		return true
	})
	return got
}
