//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestHostilePageIsRefused: a page on another origin tries to write to and
// read from the server, and to forge the extension's in-page link: a second
// hello, with a link of its own, and events on it; and events on the real
// link, taken from the natives inject.js would call to post on it, had it
// not kept its own.
func TestHostilePageIsRefused(t *testing.T) {
	r := newRig(t, "hostile-agent", map[string]any{"log_level": "all"})
	ai, site, b, port := r.ai, r.site, r.b, r.port

	if err := chromedp.Do(b.ctx, chromedp.Navigate(site+"/hostile.html?gas=http://127.0.0.1:"+itoa(port))); err != nil {
		t.Fatal(err)
	}
	var results map[string]string
	waitFor(t, 10*time.Second, "the hostile page's attempts", func() bool {
		done, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!window.__hostileDone`))
		if err != nil || !done {
			return false
		}
		results, err = chromedp.Run(b.ctx, chromedp.Evaluate[map[string]string](`window.__results`))
		return err == nil
	})
	for k, v := range results {
		if !strings.HasPrefix(v, "blocked") && !strings.Contains(v, "opaque") {
			t.Errorf("%s: the page could read Gasoline: %s", k, v)
		}
	}
	// The page's real error arrives; nothing it forged does.
	waitFor(t, 10*time.Second, "the page's real error", func() bool {
		return findContains(entries(observe(t, ai, map[string]any{"what": "errors"})), "message", "hostile-page-real-error") != nil
	})
	// The page's hooks were in place while inject.js posted the real error, and never saw its link.
	if stolen, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`window.__stolen`)); err != nil || len(stolen) != 0 {
		t.Errorf("the page took the link through %q (%v)", stolen, err)
	}
	all := mustJSON(observe(t, ai, map[string]any{"what": "logs", "limit": 500}))
	for _, forged := range []string{"forged-by-page", "forged-via-dispatch", "forged-via-call", "forged-via-link"} {
		if strings.Contains(all, forged) {
			t.Errorf("forged event %q was stored", forged)
		}
	}
}
