package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
)

// samplePageLoad is the checkout page's load 30 s before the sample's
// clock: the document, its script, styles, images, a font and an API
// call, with DOMContentLoaded, load and the vitals (LCP needs improvement,
// CLS good, INP poor).
func samplePageLoad() PageLoadMsg {
	cls := 0.04
	res := []perf.Resource{
		{URL: "http://localhost:3000/checkout", Type: "navigation", Start: 0, Duration: 180, Size: 4200, Status: 200, DNS: 2, Connect: 6, TLS: 3, Wait: 120, Download: 30},
		{URL: "http://localhost:3000/assets/app.css", Type: "link", Start: 190, Duration: 60, Size: 18400, Wait: 40, Download: 15},
		{URL: "http://localhost:3000/assets/index-4f2a.js", Type: "script", Start: 192, Duration: 420, Size: 212000, Status: 200, Wait: 60, Download: 340},
		{URL: "https://cdn.example.com/fonts/inter.woff2", Type: "css", Start: 260, Duration: 133, Size: 48000},
		{URL: "http://localhost:3000/img/hero.webp", Type: "img", Start: 640, Duration: 510, Size: 380000, Wait: 90, Download: 400},
		{URL: "http://localhost:3000/api/cart", Type: "fetch", Start: 700, Duration: 42, Size: 900},
		{URL: "http://localhost:3000/img/logo.svg", Type: "img", Start: 705, Duration: 20, Status: 404},
	}
	return PageLoadMsg{TS: at(-29), Origin: at(-30), URL: "http://localhost:3000/checkout", TabID: 412,
		TTFB: 122, DOMContentLoaded: 610, LoadTime: 1180, FCP: 650, LCP: 3100, CLS: &cls, INP: 620, Resources: res}
}

func TestVitalsRatedByThePublishedThresholds(t *testing.T) {
	for _, c := range []struct {
		v      float64
		limits [2]float64
		want   string
	}{
		{2500, lcpLimits, "good"}, {2501, lcpLimits, "needs improvement"}, {4000, lcpLimits, "needs improvement"}, {4001, lcpLimits, "poor"},
		{0.1, clsLimits, "good"}, {0.11, clsLimits, "needs improvement"}, {0.26, clsLimits, "poor"},
		{200, inpLimits, "good"}, {201, inpLimits, "needs improvement"}, {500, inpLimits, "needs improvement"}, {501, inpLimits, "poor"},
	} {
		if _, got := rate(c.v, c.limits); got != c.want {
			t.Errorf("%v against %v: %s, want %s", c.v, c.limits, got, c.want)
		}
	}
	l := perf.Sample(samplePageLoad())
	if got := vitalsText(&l); got != "LCP 3.10s needs improvement · CLS 0.04 good · INP 620ms poor" {
		t.Errorf("vitals %q", got)
	}
	// Coloured by the verdict: yellow, green, red.
	var got []class
	for _, v := range vitals(&l) {
		got = append(got, v.c)
	}
	if len(got) != 3 || got[0] != warn || got[1] != ok || got[2] != bad {
		t.Errorf("classes %v, want warn, ok, bad", got)
	}
}

// The page-load view draws one bar per request in start order, whatever
// order the timeline listed them in.
func TestPageLoadBarsInStartOrder(t *testing.T) {
	l := perf.Sample(samplePageLoad())
	l.Resources[1], l.Resources[4] = l.Resources[4], l.Resources[1]
	out := plainView(renderPageLoad(l, 120))
	var urls []string
	for _, line := range strings.Split(out, "\n")[3:] {
		if strings.Contains(line, "█") {
			urls = append(urls, strings.Fields(line)[3])
		}
	}
	want := []string{"/checkout", "/assets/app.css", "/assets/index-4f2a.js", "cdn.example.com/fonts/inter.woff2", "/img/hero.webp", "/api/cart", "/img/logo.svg"}
	same := len(urls) == len(want)
	for i := range min(len(urls), len(want)) {
		same = same && strings.HasSuffix(want[i], strings.TrimPrefix(urls[i], "…"))
	}
	if !same {
		t.Errorf("bars %v, want %v\n%s", urls, want, out)
	}
}

// o cycles the Network pane through time, took and size, the order in its
// title line; the rows of a load show beside fetch and XHR with their type
// and size, and a load replayed on reconnecting is not added twice.
func TestNetworkSortAndResourceRows(t *testing.T) {
	m := sampleModelAt(120, 40)
	m.Update(samplePageLoad())
	m.Update(samplePageLoad())
	m.Update(keyMsg("2"))
	rows := func() []string {
		var out []string
		for _, r := range m.panes.network.shown {
			out = append(out, r.text)
		}
		return out
	}
	if n := len(rows()); n != 8+6 {
		t.Fatalf("%d rows, want the 8 requests and the load's 6 that are not fetch: %q", n, rows())
	}
	if !strings.Contains(plainView(m.View()), "o sort: time") {
		t.Error("the title line does not say the order")
	}
	m.Update(keyMsg("o"))
	got := rows()
	last := got[len(got)-1]
	if !strings.Contains(last, "1.24s") || !strings.Contains(plainView(m.View()), "o sort: took") {
		t.Errorf("sorted by took, the slowest (1.24s) should be last: %q", got)
	}
	m.Update(keyMsg("o"))
	got = rows()
	if last := got[len(got)-1]; !strings.Contains(last, "380.0k") || !strings.Contains(last, "img") {
		t.Errorf("sorted by size, the hero image should be last: %q", got)
	}
	m.Update(keyMsg("o"))
	if got := rows(); !strings.Contains(got[len(got)-1], "api/checkout") {
		t.Errorf("back to time, the newest should be last: %q", got)
	}
	for _, r := range rows() {
		if e, ok := m.panes.network.shown[0].src.(capture.NetworkEntry); ok && e.Type == "fetch" && strings.Contains(r, "api/cart") && strings.Contains(r, " fetch ") {
			t.Errorf("the load's fetch is a row too: %q", r)
		}
	}
}

// w opens the load of the selected row, not only the newest, and toggles
// back; esc closes it too.
func TestPageLoadViewOfTheSelectedRowsLoad(t *testing.T) {
	m := sampleModelAt(120, 40)
	first := samplePageLoad()
	m.Update(first)
	second := samplePageLoad()
	second.URL, second.TS, second.Origin = "http://localhost:3000/cart", at(-1), at(-2)
	second.Resources = second.Resources[:1]
	second.Resources[0].URL = "http://localhost:3000/cart"
	m.Update(second)
	m.Update(keyMsg("2"))
	m.Update(keyMsg("w"))
	if v := plainView(m.View()); !strings.Contains(v, "Page load http://localhost:3000/cart · 1 requests") {
		t.Fatalf("w on the newest row should open the newest load:\n%s", v)
	}
	m.Update(keyMsg("w"))
	m.Update(keyMsg("g")) // the oldest row: the checkout's document
	m.Update(keyMsg("w"))
	if v := plainView(m.View()); !strings.Contains(v, "Page load http://localhost:3000/checkout · 7 requests") {
		t.Fatalf("w on a checkout row should open its load:\n%s", v)
	}
	m.Update(keyMsg("esc"))
	if v := plainView(m.View()); strings.Contains(v, "Page load") {
		t.Fatalf("esc should close the page load:\n%s", v)
	}
}

// The requests made after a load's sample come as the load again, longer:
// only the new ones become rows, and the open page-load view shows them.
func TestLaterRequestsJoinTheirLoad(t *testing.T) {
	m := sampleModelAt(120, 40)
	l := samplePageLoad()
	m.Update(l)
	m.Update(keyMsg("2"))
	m.Update(keyMsg("w"))
	before := m.panes.network.rows.len()
	more := samplePageLoad()
	more.Resources = append(more.Resources, perf.Resource{URL: "http://localhost:3000/img/lazy.webp", Type: "img", Start: 4200, Duration: 30})
	m.Update(more)
	if n := m.panes.network.rows.len(); n != before+1 {
		t.Errorf("%d rows, want %d: the later request alone added", n, before+1)
	}
	if v := plainView(m.View()); !strings.Contains(v, "/img/lazy.webp") || !strings.Contains(v, "8 requests") {
		t.Errorf("the open page-load view lacks the later request:\n%s", v)
	}
}

// A load's vitals raised after its sample (a slow click, a later shift)
// come as the load again with the same requests: no rows are added, and
// the column line and the open page-load view rate the current values.
func TestLaterVitalsUpdateTheirLoad(t *testing.T) {
	m := sampleModelAt(120, 40)
	l := samplePageLoad()
	l.INP, l.CLS = 0, nil
	m.Update(l)
	m.Update(keyMsg("2"))
	m.Update(keyMsg("w"))
	before := m.panes.network.rows.len()
	if v := plainView(m.View()); strings.Contains(v, "INP") {
		t.Fatalf("an INP before any interaction:\n%s", v)
	}
	raised := samplePageLoad()
	cls := 0.3
	raised.INP, raised.CLS = 312, &cls
	m.Update(raised)
	if n := m.panes.network.rows.len(); n != before {
		t.Errorf("%d rows, want %d: a vitals update adds none", n, before)
	}
	if v := plainView(m.View()); !strings.Contains(v, "CLS 0.3 poor") || !strings.Contains(v, "INP 312ms needs improvement") {
		t.Errorf("the open page-load view does not rate the raised vitals:\n%s", v)
	}
	m.Update(keyMsg("w"))
	if v := plainView(m.View()); !strings.Contains(v, "INP 312ms needs improvement") {
		t.Errorf("the column line does not rate the raised INP:\n%s", v)
	}
}

// Page loads wait in the feed apart from the notices a flood of server
// lines trims; past maxLoads in one batch, the oldest are counted.
func TestFeedKeepsPageLoads(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	f := newFeed(0, done)
	for range 2 * maxNotices {
		f.Push(LogMsg("gasoline: a server line"))
	}
	f.Push(samplePageLoad())
	for range 2 * maxNotices {
		f.Push(LogMsg("gasoline: a server line"))
	}
	loads := 0
	for _, m := range f.Next()().(batchMsg) {
		if _, ok := m.(PageLoadMsg); ok {
			loads++
		}
	}
	if loads != 1 {
		t.Fatalf("%d page loads in the batch, want 1", loads)
	}
	for range maxLoads + 2 {
		f.Push(samplePageLoad())
	}
	loads, skipped := 0, 0
	for _, m := range f.Next()().(batchMsg) {
		switch m := m.(type) {
		case PageLoadMsg:
			loads++
		case EntriesMsg:
			skipped += m.Skipped
		}
	}
	if loads != maxLoads || skipped != 2 {
		t.Fatalf("%d loads, %d counted skipped; want %d and 2", loads, skipped, maxLoads)
	}
}

// A request the extension listed itself (a document, a script, an image:
// its webRequest capture) is one row, not a second one from its page
// load's timeline; the load's other requests still show.
func TestLoadRowsSkipRequestsListedAlready(t *testing.T) {
	m := New(Config{Now: func() time.Time { return sampleNow }})
	m.Update(batchMsg{EntriesMsg{Network: []capture.NetworkEntry{
		{TS: at(-30), Method: "GET", URL: "http://localhost:3000/checkout", Status: 200, Type: "document", TabID: 412},
		{TS: at(-29.3), Method: "GET", URL: "http://localhost:3000/img/logo.svg", Status: 404, Type: "image", TabID: 412},
		// Another tab's, and the same image a minute earlier: other requests.
		{TS: at(-29.3), Method: "GET", URL: "http://localhost:3000/img/hero.webp", Status: 200, Type: "image", TabID: 9},
		{TS: at(-90), Method: "GET", URL: "http://localhost:3000/assets/app.css", Status: 200, Type: "stylesheet", TabID: 412},
	}}})
	m.Update(samplePageLoad())
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	m.Update(keyMsg("2"))
	m.View()
	count := map[string]int{}
	for _, r := range m.panes.network.shown {
		for _, u := range []string{"/checkout", "/img/logo.svg", "/img/hero.webp", "/assets/app.css", "/assets/index-4f2a.js"} {
			if strings.HasSuffix(strings.TrimSpace(r.text), u) {
				count[u]++
			}
		}
	}
	for _, r := range m.panes.network.shown {
		if strings.HasSuffix(strings.TrimSpace(r.text), "/checkout") && !strings.Contains(r.text, " doc ") ||
			strings.HasSuffix(strings.TrimSpace(r.text), "/img/logo.svg") && !strings.Contains(r.text, " img ") {
			t.Errorf("the type column names it as the load's rows do: %q", r.text)
		}
	}
	if v, _ := fieldOf(capture.NetworkEntry{Type: "image"}, "type"); !strings.Contains(v, "img") {
		t.Errorf("type:img does not find an image the column says img: %q", v)
	}
	want := map[string]int{"/checkout": 1, "/img/logo.svg": 1, "/img/hero.webp": 2, "/assets/app.css": 2, "/assets/index-4f2a.js": 1}
	for u, n := range want {
		if count[u] != n {
			t.Errorf("%s: %d rows, want %d (rows %v)", u, count[u], n, count)
		}
	}
}
