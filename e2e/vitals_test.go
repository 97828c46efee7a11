//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestLaterInteractionRaisesINP: INP is the page's whole life's, not the
// load's. After inp.html's page-load sample (no interaction by then, so no
// INP), a real click on its button, whose handler blocks the main thread
// for 300 ms, reaches the server in content/perf.js's next later batch:
// observe performance and analyze performance read an INP of 250 ms or more.
// Then a layout shift seconds later raises the load's CLS the same way.
func TestLaterInteractionRaisesINP(t *testing.T) {
	r := newRig(t, "inp-agent", map[string]any{})
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/inp.html")); err != nil {
		t.Fatal(err)
	}
	laterINP(t, r.ai, func() {
		// Input.dispatchMouseEvent: a user's click, with an interactionId.
		if err := chromedp.Do(r.b.ctx, chromedp.Click(chromedp.CSS("#slow"))); err != nil {
			t.Fatalf("click: %v", err)
		}
	}, func() bool {
		done, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`document.getElementById('out').textContent === 'clicked'`))
		return err == nil && done
	})

	// CLS too: a banner inserted seconds after the click (not input's doing)
	// shifts the page long after the sample, which measured none.
	if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`(shiftNow(), true)`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "a CLS over 0.1", func() bool {
		pages, _ := observe(t, r.ai, map[string]any{"what": "performance", "url_filter": "inp.html"})["pages"].([]any)
		cls, _ := pages[0].(map[string]any)["cls"].(float64)
		return cls > 0.1
	})
}

// TestLaterInteractionRaisesINPFirefox: the same in Firefox ESR, the click
// a WebDriver BiDi pointer action.
func TestLaterInteractionRaisesINPFirefox(t *testing.T) {
	r := newFoxRig(t, "inp-fox-agent", map[string]any{})
	r.f.navigate(t, r.f.tab, r.site+"/inp.html")
	laterINP(t, r.ai, func() { r.f.click(t, r.f.tab, "#slow") }, func() bool {
		done, err := r.f.eval(r.f.tab, `document.getElementById('out').textContent === 'clicked'`)
		return err == nil && done == true
	})
}

// laterINP waits for inp.html's page-load sample, checks it has no INP,
// clicks (clicked says when the handler ran), then waits for the INP the
// server reports to reach 250 ms.
func laterINP(t *testing.T, ai mcpClient, click func(), clicked func() bool) {
	page := func() map[string]any {
		pages, _ := observe(t, ai, map[string]any{"what": "performance", "url_filter": "inp.html"})["pages"].([]any)
		if len(pages) == 0 {
			return nil
		}
		return pages[0].(map[string]any)
	}
	var p map[string]any
	waitFor(t, 30*time.Second, "the page-load sample", func() bool { p = page(); return p != nil })
	if cls, _ := p["cls"].(float64); p["inp"] != nil || cls > 0.1 {
		t.Fatalf("an INP before any interaction, or a CLS before any shift: %v", mustJSON(p))
	}
	click()
	waitFor(t, 30*time.Second, "the click's handler", clicked)
	waitFor(t, 30*time.Second, "an INP of 250 ms or more", func() bool {
		p = page()
		inp, _ := p["inp"].(float64)
		return inp >= 250
	})
	t.Logf("INP %v ms", p["inp"])
	if p["ts"] == nil || p["load_time"] == nil {
		t.Errorf("the load's own metrics are gone: %v", mustJSON(p))
	}
	report, _ := analyze(t, ai, map[string]any{"target": "performance", "url_filter": "inp.html"})["report"].(string)
	if !strings.Contains(report, "  INP ") {
		t.Errorf("analyze performance does not report the INP:\n%s", report)
	}
}
