//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestCaptureOnAPageThatNeverLoads: the isolated world first talks to the
// worker at the load event (its bindings cost a page load ~3 ms, issue 12),
// or a second after its start. A page whose load never ends still has its
// console lines delivered and answers a DOM query.
func TestCaptureOnAPageThatNeverLoads(t *testing.T) {
	r := newRig(t, "hang-agent", map[string]any{"log_level": "all"})
	tab := chromedp.FromContext(r.b.ctx).Target
	if _, err := cdp.Call(r.b.ctx, tab, page.Navigate, page.NavigateParams{URL: r.site + "/hang.html"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the line the page logged", func() bool {
		return r.captured(t, map[string]any{"what": "logs", "url_filter": "hang.html"}, "message", "still-loading")
	})
	h := matches(analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#h"}))
	if len(h) != 1 || h[0]["text"] != "still loading" {
		t.Errorf("DOM query on the loading page: %v", h)
	}
	state, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[string](`document.readyState`))
	if err != nil || state == "complete" {
		t.Fatalf("the page loaded after all (%q, %v): the test proves nothing", state, err)
	}
}
