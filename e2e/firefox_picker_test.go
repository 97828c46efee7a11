//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestFirefoxElementPicker: the popup's "Point at an element" in the
// Firefox build, a trusted click on the page's button →
// observe{what:"pointed"} has its selector and box; the page's own
// handlers did not run.
func TestFirefoxElementPicker(t *testing.T) {
	r := newFoxRig(t, "ff-picker-agent", map[string]any{})
	r.open(t, "/capture.html")
	v, err := r.f.eval(r.f.tab, `(() => {
		window.__pageHandlers = 0;
		const go = document.getElementById('go');
		for (const t of ['pointerdown', 'mousedown', 'mouseup', 'click']) {
			go.addEventListener(t, () => window.__pageHandlers++);
			document.addEventListener(t, () => window.__pageHandlers++);
		}
		const b = go.getBoundingClientRect();
		return [b.x, b.y, b.width, b.height];
	})()`)
	box, _ := v.([]any)
	if err != nil || len(box) != 4 {
		t.Fatalf("the button: %v %v", v, err)
	}
	popup := r.f.openExtensionPage(t, "ui/popup.html")
	if _, err := r.f.eval(popup, `document.getElementById('point-note').value = 'in firefox'; document.getElementById('point').click(); true`); err != nil {
		t.Logf("the popup's click: %v", err) // the popup closes itself
	}
	waitFor(t, 15*time.Second, "the picker in the page", func() bool {
		on, err := r.f.eval(r.f.tab, `!!document.querySelector('gasoline-picker')`)
		return err == nil && on == true
	})
	// The popup closes itself once the picker runs: activating the page's tab meanwhile can fail in
	// Firefox with DiscardedBrowsingContextError.
	waitFor(t, 10*time.Second, "the popup to close itself", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		raw, err := r.f.bd.call(ctx, "browsingContext.getTree", map[string]any{"maxDepth": 0})
		return err == nil && !strings.Contains(string(raw), popup)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := r.f.bd.call(ctx, "browsingContext.activate", map[string]any{"context": r.f.tab}); err != nil {
		t.Fatalf("activate the page's tab: %v", err)
	}
	r.f.click(t, r.f.tab, "#go")
	got := newestPointed(t, r.ai)
	el, _ := got["entry"].(map[string]any)
	b, _ := el["box"].(map[string]any)
	if el["selector"] != "#go" || got["note"] != "in firefox" || !near(b["x"], box[0].(float64)) || !near(b["y"], box[1].(float64)) ||
		!near(b["width"], box[2].(float64)) || !near(b["height"], box[3].(float64)) {
		t.Fatalf("pointed: %s (the button's box: %v)", mustJSON(got), box)
	}
	if n, err := r.f.eval(r.f.tab, `window.__pageHandlers`); err != nil || n != 0.0 {
		t.Fatalf("the page's handlers ran %v times: %v", n, err)
	}
	if shot, _ := el["screenshot"].(string); !strings.HasSuffix(shot, ".png") {
		t.Errorf("no screenshot in Firefox: %v", el["screenshot_skipped"])
	}
}
