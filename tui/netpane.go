package tui

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
)

// PageLoadMsg is one page load measured: its timing marks, vitals and
// requests (the stream's pageload event).
type PageLoadMsg perf.Sample

// maxLoads bounds the page loads the Network pane keeps for its page-load
// view; each holds at most perf.MaxResourceBytes of rows.
const maxLoads = 8

// The Network pane's orders, cycled by o.
const (
	byTime = iota
	byDuration
	bySize
	orderCount
)

var orderNames = [orderCount]string{"time", "took", "size"}

// resourceEntry is a resource row's source: one request of a page load
// from the performance timeline (the document, a script, a stylesheet, an
// image, a font…), which no hook saw.
type resourceEntry struct {
	perf.Resource
	TS   time.Time // when it started
	Tab  int
	Page string
	// load names its page load among the pane's loads (a key, not the
	// load: a row must not keep an evicted load's rows alive).
	load loadKey
}

// loadKey tells page loads apart: the page and when its navigation
// started and was sampled.
type loadKey struct {
	url            string
	origin, sample int64 // Unix ms
}

func keyOf(l *perf.Sample) loadKey { return loadKey{l.URL, l.Origin.UnixMilli(), l.TS.UnixMilli()} }

// netKeys are the Network pane's own, besides the stream's: o cycles the
// order (time, took, size); w opens the page-load view, which w or esc
// closes.
type netKeys struct {
	Sort, PageLoad, Back key.Binding
}

// netPane is the Network stream: every request the extension listed and
// those of the page loads it did not, in an order o picks, with w's page-load view.
type netPane struct {
	*streamPane
	netKeys  netKeys
	order    int
	loads    []*perf.Sample // newest last
	loadView *perf.Sample   // the load w shows, nil when closed
	loadVP   viewport.Model
}

func newNetworkPane() *netPane {
	p := &netPane{streamPane: newStreamPane("Network", netHead,
		"No requests yet. The page's loads, fetch and XHR calls appear here."), loadVP: viewport.New(0, 0),
		netKeys: netKeys{
			Sort:     key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "network: sort")),
			PageLoad: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "network: page load")),
			Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		}}
	p.setNote()
	return p
}

// netWide is the narrowest pane that shows every column and 40 cells of
// URL; narrower, the rows drop time, size and took (netCompact).
const netWide = 53 + 40

var (
	netHead     = fmt.Sprintf(netFormat, "TIME", " ", "METHOD", "STATUS", "TYPE", "SIZE", "TOOK", "URL")
	netHeadNarr = fmt.Sprintf(netCompact, " ", "METHOD", "STATUS", "TYPE", "URL")
)

// compact switches the rows between the wide and the compact layout.
func (p *netPane) compact(on bool) {
	p.colHead, p.narrow = netHead, nil
	if on {
		p.colHead, p.narrow = netHeadNarr, compactRow
	}
}

// compactRow renders a request's row again without time, size and took.
func compactRow(r row) row {
	var n row
	switch e := r.src.(type) {
	case capture.NetworkEntry:
		n = networkRowAt(e, true)
	case resourceEntry:
		n = resourceRowAt(e, true)
	default:
		return r
	}
	n.seq, n.port, n.cut, n.tab = r.seq, r.port, r.cut, r.tab
	if r.agent != "" {
		n = withAgent(n, r.agent)
	}
	return n
}

// spanOf is a Network row's request: when it started, how long it took,
// its size and its phases, when the row is a request.
func spanOf(r row) (start time.Time, took float64, size int64, res *perf.Resource, ok bool) {
	switch e := r.src.(type) {
	case capture.NetworkEntry:
		return e.TS.Time, e.DurationMS, e.Size, nil, true
	case resourceEntry:
		return e.TS, e.Duration, e.Size, &e.Resource, true
	case navMark:
		return e.TS.Time, 0, 0, nil, true // in time order, where the page changed
	}
	return time.Time{}, 0, 0, nil, false
}

// compareBy orders rows by the pane's order, ascending, so the longest and
// largest sit next to the newest, where the selection follows. Time is the
// arrival order until a page load's rows, which started before the calls
// that came meanwhile, need sorting.
func compareBy(order int) func(a, b row) int {
	return func(a, b row) int {
		sa, ta, za, _, _ := spanOf(a)
		sb, tb, zb, _, _ := spanOf(b)
		c := 0
		switch order {
		case byDuration:
			c = cmp.Compare(ta, tb)
		case bySize:
			c = cmp.Compare(za, zb)
		}
		if c == 0 {
			c = sa.Compare(sb)
		}
		return c
	}
}

// setOrder sorts the rows by order.
func (p *netPane) setOrder(order int) {
	p.order = order
	p.streamPane.order = nil
	if order != byTime || len(p.loads) > 0 {
		p.streamPane.order = compareBy(order)
	}
	p.follow, p.sel, p.dirty = true, 0, true
	p.setNote()
}

// setNote says the order and the newest load's vitals on the column
// titles' line.
func (p *netPane) setNote() {
	n := "o sort: " + orderNames[p.order]
	if p.order != byTime {
		n += " ↑"
	}
	if len(p.loads) > 0 {
		n = "w page load · " + n
		if v := vitalsText(p.loads[len(p.loads)-1]); v != "" {
			n = v + " · " + n
		}
	}
	p.note = n
}

// addLoad keeps a page load for w and shows its requests as rows, but
// those of fetch and XHR, which their own hooks report, and those the
// extension listed itself. A load already
// kept comes again with the requests made after its sample: only those
// are added (none when it is the stream's replay on reconnecting).
func (p *netPane) addLoad(l perf.Sample) {
	key := keyOf(&l)
	kept, fresh := &l, l.Resources
	known := slices.IndexFunc(p.loads, func(k *perf.Sample) bool { return keyOf(k) == key })
	switch {
	case known >= 0 && len(l.Resources) < len(p.loads[known].Resources):
		return // an older copy
	case known >= 0:
		// Later requests, or only more of them left out by the bounds.
		fresh = l.Resources[len(p.loads[known].Resources):]
		if p.loadView == p.loads[known] {
			p.loadView = kept
			p.loadVP.SetContent(renderPageLoad(l, p.width))
		}
		p.loads[known] = kept
	default:
		p.loads = append(p.loads, kept)
		if len(p.loads) > maxLoads {
			p.loads = p.loads[1:]
		}
	}
	origin := l.Origin.Time
	if origin.IsZero() {
		origin = l.TS.Time
	}
	rows := make([]row, 0, len(fresh))
	listed := p.listedRequests()
	for _, r := range sortedByStart(fresh) {
		if r.Type == "fetch" || r.Type == "xmlhttprequest" {
			continue
		}
		at := origin.Add(time.Duration(r.Start * float64(time.Millisecond)))
		if listed.has(l.TabID, r.URL, at) {
			continue // the extension listed the request itself (its webRequest capture)
		}
		rows = append(rows, resourceRow(resourceEntry{Resource: r, TS: at, Tab: l.TabID, Page: l.URL, load: key}))
	}
	if len(rows) > 0 {
		p.add(rows)
		// Its rows started before the fetches that came in the meantime:
		// in time order from now on, the selection left where it is.
		p.streamPane.order = compareBy(p.order)
		p.dirty = true
	}
	p.setNote()
}

// requestKey is a request the rows list: its tab and URL.
type requestKey struct {
	tab int
	url string
}

// listedSet is when each request the rows list started, by tab and URL.
type listedSet map[requestKey][]time.Time

// sameRequest is how far a load's own time for a request and the
// extension's may be apart.
const sameRequest = 2 * time.Second

func (s listedSet) has(tab int, url string, at time.Time) bool {
	for _, t := range s[requestKey{tab, url}] {
		if d := t.Sub(at); d < sameRequest && d > -sameRequest {
			return true
		}
	}
	return false
}

// listedRequests are the requests of the rows that are network entries:
// the extension lists a page's every request (documents, scripts,
// images…), which its load's rows then need not list again.
func (p *netPane) listedRequests() listedSet {
	s := listedSet{}
	add := func(r row) {
		if e, ok := r.src.(capture.NetworkEntry); ok && e.Type != "fetch" && e.Type != "xhr" {
			k := requestKey{e.TabID, e.URL}
			s[k] = append(s[k], e.TS.Time)
		}
	}
	p.rows.each(add)
	p.held.each(add)
	return s
}

// Update takes o (order) and w (page-load view) before the stream's keys;
// while the page-load view is open, the arrows scroll it.
func (p *netPane) Update(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := p.netKeys
	switch {
	case key.Matches(msg, k.Back) && p.loadView != nil:
		p.loadView = nil
		return nil, true
	case key.Matches(msg, k.Sort) && p.loadView == nil:
		p.setOrder((p.order + 1) % orderCount)
		return notice("Network sorted by " + orderNames[p.order]), true
	case key.Matches(msg, k.PageLoad):
		if p.loadView != nil {
			p.loadView = nil
			return nil, true
		}
		l := p.pickLoad()
		if l == nil {
			return notice("no page load measured yet: the extension sends one about a second after a page's load event"), true
		}
		p.loadView = l
		p.loadVP.SetContent(renderPageLoad(*l, p.width))
		p.loadVP.GotoTop()
		return nil, true
	}
	if p.loadView != nil {
		if !p.keys.scroll(&p.loadVP, msg) {
			return notice(msg.String() + " works on the rows: w closes the page load first"), true
		}
		return nil, true
	}
	return p.streamPane.Update(msg)
}

// pickLoad is the load of the selected row when it is one of a load's
// requests, else the newest load.
func (p *netPane) pickLoad() *perf.Sample {
	if r, ok := p.Selected(); ok {
		if e, ok := r.src.(resourceEntry); ok {
			for _, l := range p.loads {
				if keyOf(l) == e.load {
					return l
				}
			}
		}
	}
	if len(p.loads) == 0 {
		return nil
	}
	return p.loads[len(p.loads)-1]
}

// SetSize sizes the rows and the page-load view alike.
func (p *netPane) SetSize(w, h int) {
	p.streamPane.SetSize(w, h)
	p.compact(w < netWide)
	p.loadVP.Width, p.loadVP.Height = w, max(1, h)
	if p.loadView != nil {
		p.loadVP.SetContent(renderPageLoad(*p.loadView, w))
	}
}

// View is the page-load view when w opened it, else the rows.
func (p *netPane) View() string {
	if p.loadView != nil {
		return p.loadVP.View()
	}
	return p.streamPane.View()
}

// Status says the page-load view is open, or the stream's state.
func (p *netPane) Status() string {
	if p.loadView != nil {
		return "page load · w or esc back"
	}
	return p.streamPane.Status()
}

// resourceRow renders one request of a page load as the Network pane
// lists fetch and XHR: the same columns, its type by what it is.
func resourceRow(e resourceEntry) row { return resourceRowAt(e, false) }

// resourceRowAt is resourceRow, compact as networkRowAt.
func resourceRowAt(e resourceEntry, compact bool) row {
	c, mark := plain, " "
	status := "-"
	if e.Status > 0 {
		status = fmt.Sprint(e.Status)
	}
	if e.Status >= 400 {
		c, mark = bad, "✖"
	}
	line := fmt.Sprintf(netFormat, stamp(e.TS), mark, "", status, kindOf(e.Resource), sizeText(e.Size), duration(e.Duration), clean(e.URL))
	if compact {
		line = fmt.Sprintf(netCompact, mark, "", status, kindOf(e.Resource), clean(e.URL))
	}
	r := newRow(c, line)
	r.src = e
	return r
}

// kindOf names a request's type as DevTools does, short: what its
// initiator says, or for a link or a CSS url() its file's extension.
func kindOf(r perf.Resource) string {
	ext := strings.ToLower(path.Ext(strings.SplitN(strings.SplitN(r.URL, "?", 2)[0], "#", 2)[0]))
	switch ext {
	case ".woff", ".woff2", ".ttf", ".otf", ".eot":
		return "font"
	case ".css":
		return "css"
	case ".js", ".mjs":
		if r.Type == "script" || r.Type == "link" || r.Type == "other" {
			return "script"
		}
	case ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".ico", ".bmp":
		if r.Type != "fetch" && r.Type != "xmlhttprequest" {
			return "img"
		}
	}
	switch r.Type {
	case "navigation":
		return "doc"
	case "img", "image", "input":
		return "img"
	case "xmlhttprequest":
		return "xhr"
	case "link", "css":
		return "css"
	case "iframe", "frame":
		return "frame"
	}
	return fit(r.Type, 6)
}

// netType is a network entry's type column: short, as a load's rows name
// the same requests (kindOf).
func netType(e capture.NetworkEntry) string {
	switch e.Type {
	case "":
		return "-"
	case "document":
		return "doc"
	case "image":
		return "img"
	case "stylesheet":
		return "css"
	case "csp_report":
		return "csp"
	}
	return fit(e.Type, 6)
}

// sizeText is a size in few cells: 812B, 12.3k, 1.2M.
func sizeText(n int64) string {
	switch {
	case n <= 0:
		return "-"
	case n < 1000:
		return fmt.Sprintf("%dB", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}
