package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// neighbours is how many requests on each side of the selected one, in
// start order, its waterfall draws.
const neighbours = 4

// nearBy is how far apart in time a neighbour may start: further, the
// selected request's bar would shrink to a cell.
const nearBy = 3 * time.Second

// reqSpan is one request in a waterfall.
type reqSpan struct {
	kind, url string
	start     time.Time
	took      float64 // ms
	ph        *phases // nil when the browser gave none
	selected  bool
}

// phases is a request's timing breakdown, from a page load's row or a
// fetch/XHR entry alike.
type phases struct {
	capture.Timing
	took float64 // ms, the whole request: what is not a phase was queued
}

// phasesOf is the breakdown of a row, nil when it has none.
func phasesOf(r row) *phases {
	var p phases
	switch e := r.src.(type) {
	case resourceEntry:
		p = phases{capture.Timing{DNS: e.DNS, Connect: e.Connect, TLS: e.TLS, Wait: e.Wait, Download: e.Download}, e.Duration}
	case capture.NetworkEntry:
		if e.Timing == nil {
			return nil
		}
		p = phases{*e.Timing, e.Elapsed()}
	default:
		return nil
	}
	if p.DNS+p.Connect+p.Wait+p.Download <= 0 {
		return nil
	}
	p.took = max(p.took, p.DNS+p.Connect+p.Wait+p.Download)
	return &p
}

// rowSpan is a Network row as a waterfall's span.
func rowSpan(r row) (reqSpan, bool) {
	start, took, _, _, ok := spanOf(r)
	if !ok {
		return reqSpan{}, false
	}
	s := reqSpan{start: start, took: took, ph: phasesOf(r)}
	switch e := r.src.(type) {
	case resourceEntry:
		s.kind, s.url = kindOf(e.Resource), shortURL(e.URL, e.Page)
	case capture.NetworkEntry:
		s.kind, s.url = netType(e), shortURL(e.URL, e.Page)
	}
	return s, true
}

// waterfall is the selected row among its neighbours in time for the
// detail view, nil when the pane or the row has none.
func (p *netPane) waterfall() func(w int) string {
	sel, ok := p.Selected()
	if !ok {
		return nil
	}
	var all []reqSpan
	p.rows.each(func(r row) {
		if s, ok := rowSpan(r); ok {
			s.selected = r.seq == sel.seq
			all = append(all, s)
		}
	})
	slices.SortStableFunc(all, func(a, b reqSpan) int { return a.start.Compare(b.start) })
	at := slices.IndexFunc(all, func(s reqSpan) bool { return s.selected })
	if at < 0 {
		return nil
	}
	lo, hi := max(0, at-neighbours), min(len(all), at+neighbours+1)
	near := func(s reqSpan) bool {
		d := s.start.Sub(all[at].start)
		return d < nearBy && d > -nearBy
	}
	for !near(all[lo]) {
		lo++
	}
	for !near(all[hi-1]) {
		hi--
	}
	spans := all[lo:hi]
	return func(w int) string { return renderWaterfall(spans, at-lo, w) }
}

// The phases of a request's bar, in order, each with its glyph: what the
// plain-text copy and a monochrome terminal still tell apart.
var phaseGlyphs = []struct {
	name  string
	glyph string
	get   func(*phases) float64
}{
	{"dns", "▒", func(p *phases) float64 { return p.DNS }},
	{"connect", "▓", func(p *phases) float64 { return p.Connect - p.TLS }},
	{"tls", "▓", func(p *phases) float64 { return p.TLS }},
	{"wait (TTFB)", "░", func(p *phases) float64 { return p.Wait }},
	{"download", "█", func(p *phases) float64 { return p.Download }},
}

// renderWaterfall draws spans (in start order) as bars on one time scale,
// the selected one marked ▶ and drawn by its phases (queued first, then
// dns, connect, tls, wait, download) when it has them, with a line naming
// them. It is pure, for golden tests.
func renderWaterfall(spans []reqSpan, sel, w int) string {
	if len(spans) == 0 {
		return ""
	}
	t0 := spans[0].start
	var total float64
	for _, s := range spans {
		total = max(total, ms(s.start.Sub(t0))+s.took)
	}
	total = max(total, 1)
	lw := min(60, max(12, w/3))
	bw := max(10, w-lw-3)
	cell := func(v float64) int { return min(bw-1, int(v/total*float64(bw-1)+0.5)) }
	var b strings.Builder
	b.WriteString(styleColHead.Render(fit(fmt.Sprintf("Waterfall: this request (▶) among its neighbours, %s in all", duration(total)), w)) + "\n")
	for i, s := range spans {
		mark := "  "
		if i == sel {
			mark = "▶ "
		}
		label := fmt.Sprintf("%-6s %s", s.kind, padTo(fitLeft(s.url, lw-7), lw-7))
		from := cell(ms(s.start.Sub(t0)))
		to := max(from, cell(ms(s.start.Sub(t0))+s.took))
		bar := typeStyle(s.kind).Render(strings.Repeat("█", to-from+1))
		if i == sel && s.ph != nil {
			bar = phaseBar(s.ph, to-from+1)
		}
		line := mark + label + " " + strings.Repeat(" ", from) + bar
		if i == sel {
			line = styleTitle.Render(mark) + label + " " + strings.Repeat(" ", from) + bar
		}
		b.WriteString(line + "\n")
	}
	s := spans[sel]
	if s.ph == nil {
		b.WriteString(styleDim.Render(fit("No timing breakdown: the browser times only finished requests, same-origin or with Timing-Allow-Origin.", w)))
		return b.String()
	}
	parts := []string{"queued " + duration(queued(s.ph))}
	for _, p := range phaseGlyphs {
		if v := p.get(s.ph); v > 0 {
			parts = append(parts, fmt.Sprintf("%s %s %s", p.glyph, p.name, duration(v)))
		}
	}
	b.WriteString(fit(strings.Join(parts, " · "), w))
	return b.String()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// queued is the part of a request before its first phase: waiting for a
// connection, or the browser's own queue.
func queued(p *phases) float64 {
	return max(0, p.took-p.DNS-p.Connect-p.Wait-p.Download)
}

// phaseBar is a bar of n cells split by the request's phases.
func phaseBar(r *phases, n int) string {
	var b strings.Builder
	used := 0
	put := func(glyph string, v float64, st func(string) string) {
		k := int(v/max(r.took, 1)*float64(n) + 0.5)
		k = min(k, n-used)
		if k > 0 {
			b.WriteString(st(strings.Repeat(glyph, k)))
			used += k
		}
	}
	dim := func(s string) string { return styleDim.Render(s) }
	put("─", queued(r), dim)
	for _, p := range phaseGlyphs {
		put(p.glyph, p.get(r), func(s string) string { return styleInfo.Render(s) })
	}
	if used < n {
		b.WriteString(styleInfo.Render(strings.Repeat("█", n-used)))
	}
	return b.String()
}

// describeResource writes a page load's request for the detail view and
// returns its title.
func describeResource(b *block, e resourceEntry) string {
	b.field("time", stampFull(e.TS))
	b.field("url", e.URL)
	b.field("type", kindOf(e.Resource)+" (initiator "+e.Type+")")
	if e.Status > 0 {
		b.field("status", fmt.Sprint(e.Status))
	}
	b.field("took", duration(e.Duration))
	b.field("started", "+"+duration(e.Start)+" into the page load")
	if e.Size > 0 {
		b.field("size", fmt.Sprintf("%d B over the wire", e.Size))
	} else {
		b.field("size", "0 B over the wire (from the cache, or cross-origin)")
	}
	b.where(e.Tab, e.Page)
	b.line("")
	b.line("From the page's performance timeline: no headers or bodies for it.")
	return "Load " + kindOf(e.Resource) + " " + e.URL
}
