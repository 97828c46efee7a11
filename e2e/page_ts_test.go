//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Issue 58 row 11: observe page after two reloads dates the page from the
// current document, not the first load.
func TestObservePageAfterReloads(t *testing.T) {
	r := newRig(t, "reload-agent", map[string]any{"log_level": "error"})
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/capture.html")); err != nil {
		t.Fatal(err)
	}
	ts := func() time.Time {
		out := observe(t, r.ai, map[string]any{"what": "page"})
		s, _ := out["ts"].(string)
		at, _ := time.Parse(time.RFC3339Nano, s)
		return at
	}
	var first time.Time
	waitFor(t, 20*time.Second, "the page", func() bool { first = ts(); return !first.IsZero() })
	var last time.Time
	for range 2 {
		before := time.Now()
		if err := chromedp.Do(r.b.ctx, chromedp.Reload()); err != nil {
			t.Fatal(err)
		}
		// The document committed after the reload was asked for (the clocks
		// are this machine's; the page's is in milliseconds).
		waitFor(t, 20*time.Second, "the reload's time", func() bool {
			last = ts()
			return !last.Before(before.Truncate(time.Millisecond)) && last.After(first)
		})
		first = last
	}
}
