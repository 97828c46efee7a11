package har

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Load is one page load as the page measured it (features/perf): its tab,
// URL, when its navigation started, and its DOMContentLoaded and load event
// in milliseconds from then (0: not measured).
type Load struct {
	Tab           int
	URL           string
	Start         time.Time
	OnContentLoad float64
	OnLoad        float64
}

// loadTolerance is how far a load's navigation start and its document
// request's start may be apart: the page's time origin comes first, the
// request after the browser's own work (and any redirect) before it.
const loadTolerance = 5 * time.Second

// page is one page of the archive while it is built.
type page struct {
	tab        int
	url        string
	start      time.Time
	doc        bool // started by its document request
	load       *Load
	id         string
	firstEntry time.Time
}

// pager gives each request the page load it belongs to, as DevTools does:
// a page per load of a tab's document, not per URL. A document request
// (type "document", not a redirect) starts a page; every other request of
// the same tab whose page is that document's URL belongs to the newest
// such load started before it. A request whose load's document is not
// held (evicted, or captured by an extension that did not list documents)
// shares a page with those of the same tab and page URL. Each page takes
// its timings from the page load the page measured (Load).
type pager struct {
	docs   map[pageKey][]*page // by tab and URL, oldest first
	others map[pageKey]*page
	list   []*page
}

type pageKey struct {
	tab int
	url string
}

func newPager(entries []*capture.NetworkEntry) *pager {
	p := &pager{docs: map[pageKey][]*page{}, others: map[pageKey]*page{}}
	for _, n := range entries {
		if !startsPage(n) {
			continue
		}
		k := pageKey{n.TabID, noFragment(n.URL)}
		pg := &page{tab: n.TabID, url: n.URL, start: n.TS.Time, doc: true, firstEntry: n.TS.Time}
		p.docs[k] = append(p.docs[k], pg)
		p.list = append(p.list, pg)
	}
	for _, l := range p.docs {
		sort.SliceStable(l, func(i, j int) bool { return l[i].start.Before(l[j].start) })
	}
	return p
}

// startsPage: a tab's document, answered (a redirect's hop is not a page).
func startsPage(n *capture.NetworkEntry) bool {
	return n.Type == "document" && n.Page != "" && (n.Status < 300 || n.Status >= 400)
}

// of is the page of a request; nil when it names no page.
func (p *pager) of(n *capture.NetworkEntry) *page {
	if n.Page == "" {
		return nil
	}
	k := pageKey{n.TabID, noFragment(n.Page)}
	var found *page
	for _, pg := range p.docs[k] {
		if pg.start.After(n.TS.Time) {
			break
		}
		found = pg
	}
	if found != nil {
		return found
	}
	pg := p.others[k]
	if pg == nil {
		pg = &page{tab: n.TabID, url: n.Page, start: n.TS.Time, firstEntry: n.TS.Time}
		p.others[k] = pg
		p.list = append(p.list, pg)
	} else if n.TS.Before(pg.start) {
		pg.start, pg.firstEntry = n.TS.Time, n.TS.Time
	}
	return pg
}

// pages times each page by its load and numbers them in the order they
// started; it returns them as the archive lists them.
func (p *pager) pages(loads []Load) []Page {
	for _, pg := range p.list {
		pg.load = loadOf(pg, loads)
		if pg.load != nil && !pg.doc {
			pg.start = pg.load.Start // the load began before the first request held
		}
	}
	sort.SliceStable(p.list, func(i, j int) bool { return p.list[i].start.Before(p.list[j].start) })
	out := make([]Page, len(p.list))
	for i, pg := range p.list {
		pg.id = pageID(i)
		t := PageTimings{OnContentLoad: -1, OnLoad: -1}
		if l := pg.load; l != nil {
			t.OnContentLoad, t.OnLoad = since(pg.start, l.Start, l.OnContentLoad), since(pg.start, l.Start, l.OnLoad)
		}
		out[i] = Page{StartedDateTime: stamp(pg.start), ID: pg.id, Title: pg.url, PageTimings: t}
	}
	return out
}

// loadOf is the measured load of a page: of its tab and URL, for a page
// its document started the one whose navigation started nearest to it,
// for another the newest that started before its first request.
func loadOf(pg *page, loads []Load) *Load {
	var best *Load
	var gap time.Duration
	for i := range loads {
		l := &loads[i]
		if (l.Tab != 0 && pg.tab != 0 && l.Tab != pg.tab) || noFragment(l.URL) != noFragment(pg.url) {
			continue
		}
		if pg.doc {
			g := l.Start.Sub(pg.start).Abs()
			if g <= loadTolerance && (best == nil || g < gap) {
				best, gap = l, g
			}
		} else if !l.Start.After(pg.firstEntry) && (best == nil || l.Start.After(best.Start)) {
			best = l
		}
	}
	return best
}

// since is a page timing: ms milliseconds after the load's start, counted
// from the page's start; -1 when not measured.
func since(pageStart, loadStart time.Time, ms float64) float64 {
	if ms <= 0 {
		return -1
	}
	d := float64(loadStart.Sub(pageStart)) / float64(time.Millisecond)
	return math.Round(max(d+ms, 0)*10) / 10
}

func noFragment(u string) string {
	u, _, _ = strings.Cut(u, "#")
	return u
}
