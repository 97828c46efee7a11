//go:build e2e

package e2e

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A page of 20 resources in real Chromium with the real extension: the
// Network pane lists its requests with their types beside the page's own,
// and w draws its page load: the document and the 20 resources, one bar
// each, in the order they started (as the page's performance timeline has
// them), with the load's marks.
func TestPageLoadViewOfTwentyResources(t *testing.T) {
	port := freePort(t)
	dash := startDashboardSized(t, 200, 60, port, "dash-waterfall")
	dash.await(10*time.Second, "127.0.0.1:"+strconv.Itoa(port))
	site := fixtureServer(t)
	b := launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(port)))
	if err := chromedp.Do(b.ctx, chromedp.Navigate(site+"/waterfall.html")); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	// The page's own start order, times rounded as the extension sends them
	// (both sorts are stable over the timeline's order).
	order, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`performance.getEntriesByType('resource')
		.map((e) => [Math.round(e.startTime * 10) / 10, new URL(e.name).pathname])
		.sort((a, b) => a[0] - b[0]).map((e) => e[1])`))
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 20 {
		t.Fatalf("the fixture loaded %d resources, want 20: %v", len(order), order)
	}

	dash.keys("2")
	dash.await(30*time.Second, "/waterfall/w5.js", "/waterfall/i5.svg")
	screen := dash.screen()
	for _, typ := range []string{"script", "css", "img", "font", "doc"} {
		if !regexp.MustCompile(`\d\d:\d\d:\d\d\.\d{3} .* ` + typ + ` .*/waterfall`).MatchString(screen) {
			t.Errorf("no %s row of the page load in the Network pane:\n%s", typ, screen)
		}
	}

	// The rows are the extension's own list of the requests (webRequest), which comes before the load's
	// sample: w waits for the load, which the column line then names.
	dash.await(10*time.Second, "w page load")
	// One request, one size: the body's, in the list and in the page-load view alike.
	sizeIn := func(screen, row string) string {
		m := regexp.MustCompile(`script +(\S+) +\S+ +\S*` + regexp.QuoteMeta(row)).FindStringSubmatch(screen)
		if m == nil {
			t.Fatalf("no script row %s:\n%s", row, screen)
		}
		return m[1]
	}
	listed := sizeIn(screen, "/waterfall/w5.js")
	dash.keys("w")
	dash.await(10*time.Second, "Page load http://127.0.0.1:", "21 requests", "D DOMContentLoaded", "L load")
	screen = dash.screen()
	if loaded := sizeIn(screen, "/waterfall/w5.js"); loaded != listed {
		t.Errorf("/waterfall/w5.js is %s in the list and %s in the page-load view", listed, loaded)
	}
	var bars []string
	for _, l := range strings.Split(screen, "\n") {
		f := strings.Fields(l)
		if len(f) > 4 && strings.Contains(l, "█") && strings.HasPrefix(f[3], "/") {
			bars = append(bars, f[3])
		}
	}
	want := append([]string{"/waterfall.html"}, order...)
	if !slices.Equal(bars, want) {
		t.Fatalf("bars %v\nwant the document then the timeline's start order %v; the screen:\n%s", bars, want, screen)
	}
	// Each bar starts at or after the one above it.
	col := -1
	for _, l := range strings.Split(screen, "\n") {
		if i := strings.Index(l, "█"); i >= 0 && strings.Contains(l, "/waterfall") {
			c := len([]rune(l[:i]))
			if c < col {
				t.Fatalf("a bar starts left of the one above it:\n%s", screen)
			}
			col = c
		}
	}
	dash.keys("w")
	dash.awaitGone(10*time.Second, "21 requests")
}

// A click right after the load whose handler blocks for 600 ms is the
// load's INP, rated poor in the page-load view beside LCP and CLS.
func TestPageLoadViewRatesINP(t *testing.T) {
	port := freePort(t)
	dash := startDashboardSized(t, 200, 60, port, "dash-inp")
	dash.await(10*time.Second, "127.0.0.1:"+strconv.Itoa(port))
	site := fixtureServer(t)
	b := launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(port)))
	if err := chromedp.Do(b.ctx, chromedp.Navigate(site+"/waterfall.html"), chromedp.Click(chromedp.CSS("#slow"))); err != nil {
		t.Fatalf("navigate and click: %v", err)
	}
	dash.keys("2")
	dash.await(30*time.Second, "/waterfall/w5.js")
	// The requests' rows come as they happen; the view opens once the load is measured.
	dash.await(10*time.Second, "w page load")
	dash.keys("w")
	dash.await(10*time.Second, "Page load http://127.0.0.1:", "CLS ", "INP ") // LCP stops at the first input: the click may come first
	if !regexp.MustCompile(`INP \d{3}ms poor`).MatchString(dash.screen()) {
		t.Fatalf("no poor INP in the page-load view:\n%s", dash.screen())
	}
}

// An image and a script loaded 2.5 s after the load, after the
// extension's sample of it, join the load: rows in the Network pane and
// bars in its page-load view.
func TestRequestsAfterTheLoadJoinIt(t *testing.T) {
	port := freePort(t)
	dash := startDashboardSized(t, 200, 60, port, "dash-later")
	dash.await(10*time.Second, "127.0.0.1:"+strconv.Itoa(port))
	site := fixtureServer(t)
	b := launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(port)))
	if err := chromedp.Do(b.ctx, chromedp.Navigate(site+"/later.html")); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	dash.keys("2")
	dash.await(30*time.Second, "/later.html")
	dash.await(30*time.Second, "/waterfall/i2.svg?late=1", "/waterfall/w2.js?late=1")
	dash.keys("w")
	dash.await(10*time.Second, "Page load http://127.0.0.1:", "/later.html · 3 requests")
	if !regexp.MustCompile(`img .*/waterfall/i2\.svg\?late=1 .*█`).MatchString(dash.screen()) {
		t.Fatalf("no bar of the later image:\n%s", dash.screen())
	}
}
