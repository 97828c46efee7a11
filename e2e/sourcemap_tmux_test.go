//go:build e2e

package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Issue 58 row 5, one resolver for every reader: the esbuild fixture's
// uncaught TypeError, thrown in a minified bundle with a linked map, is
// shown to the human (the Console row and its detail, in a real terminal)
// and streamed to the AI at its original source, as observe errors reads it.
func TestMappedFrameInDashboardAndStream(t *testing.T) {
	port := freePort(t)
	dash := startDashboardSized(t, 200, 50, port, "mapped")
	dash.await(10*time.Second, "127.0.0.1:"+strconv.Itoa(port))
	ai := mcpStdio(t, port, "sm-stream")
	notes := listen(t, ai)
	if out, isErr, err := callTool(ai, "configure", map[string]any{"action": "streaming", "enabled": true,
		"throttle_seconds": 1, "events": []any{"errors"}}); err != nil || isErr {
		t.Fatalf("streaming: %v %v", out, err)
	}

	app := serveApp(t, buildApp(t, false))
	b := launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(port)))
	if err := chromedp.Do(b.ctx, chromedp.Navigate(app.URL+"/index.html")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the app", func() bool {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!window.app`))
		return err == nil && ok
	})
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`(() => { app.uncaught(); return true; })()`)); err != nil {
		t.Fatal(err)
	}

	// The row names where it was thrown, at its source.
	dash.await(20*time.Second, "reading 'rate'", "@ /src/cart.ts:9:")
	if strings.Contains(dash.screen(), "dist/app.js") {
		t.Errorf("the Console pane still shows the bundle:\n%s", dash.screen())
	}
	// Its detail: the source, and the stack frame by frame.
	dash.keys("/")
	dash.keys("-l", "reading 'rate'")
	dash.keys("Enter")
	dash.keys("Enter")
	dash.await(5*time.Second, "── stack ──", "applyCoupon /src/cart.ts:9:", "onCheckoutClick /src/main.ts:9:")
	if s := dash.screen(); strings.Contains(s, "dist/app.js") {
		t.Errorf("the detail still shows the bundle:\n%s", s)
	}

	got := collect(t, notes, 15*time.Second, "New error: Uncaught TypeError")
	src := ""
	for _, r := range got {
		for _, e := range r.events() {
			if c, ok := e["context"].(map[string]any); ok && strings.HasPrefix(e["message"].(string), "New error") {
				src, _ = c["source"].(string)
			}
		}
	}
	if !strings.HasPrefix(src, "/src/cart.ts:9:") {
		t.Errorf("the notification's source: %q (%s)", src, mustJSON(got[len(got)-1].params))
	}
}
