package tui

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/gasoline-dev/gasoline/features/perf"
)

// Web Vitals' published thresholds: good up to the first, poor past the
// second, needs improvement between.
var (
	lcpLimits = [2]float64{2500, 4000} // ms
	clsLimits = [2]float64{0.1, 0.25}
	inpLimits = [2]float64{200, 500} // ms
)

// rate is a vital's verdict and its colour.
func rate(v float64, limits [2]float64) (class, string) {
	switch {
	case v <= limits[0]:
		return ok, "good"
	case v <= limits[1]:
		return warn, "needs improvement"
	}
	return bad, "poor"
}

// vital is one measured Web Vital as text and its verdict's class.
type vital struct {
	text string
	c    class
}

// vitals are the load's LCP, CLS and INP, those measured.
func vitals(l *perf.Sample) []vital {
	var out []vital
	add := func(name, val string, v float64, limits [2]float64) {
		c, word := rate(v, limits)
		out = append(out, vital{name + " " + val + " " + word, c})
	}
	if l.LCP > 0 {
		add("LCP", duration(l.LCP), l.LCP, lcpLimits)
	}
	if l.CLS != nil {
		add("CLS", fmt.Sprintf("%.3g", *l.CLS), *l.CLS, clsLimits)
	}
	if l.INP > 0 {
		add("INP", duration(l.INP), l.INP, inpLimits)
	}
	return out
}

// vitalsText is the vitals in words, for the Network pane's title line.
func vitalsText(l *perf.Sample) string {
	var parts []string
	for _, v := range vitals(l) {
		parts = append(parts, v.text)
	}
	return strings.Join(parts, " · ")
}

// typeStyle colours a request's bar by its type, as DevTools does.
func typeStyle(kind string) lipgloss.Style {
	c := "7"
	switch kind {
	case "doc":
		c = "4"
	case "script":
		c = "3"
	case "css":
		c = "5"
	case "img":
		c = "2"
	case "font":
		c = "6"
	case "fetch", "xhr":
		c = "8"
	}
	return lipgloss.NewStyle().Foreground(lipgloss.Color(c))
}

// sortedByStart is the rows in start order; the timeline's order, for
// rows of equal start.
func sortedByStart(rs []perf.Resource) []perf.Resource {
	out := slices.Clone(rs)
	slices.SortStableFunc(out, func(a, b perf.Resource) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	return out
}

// shortURL is a request's URL as the page-load view names it: the path
// and query on the page's own origin, else the host and path.
func shortURL(raw, page string) string {
	u, err := url.Parse(raw)
	p, perr := url.Parse(page)
	if err != nil || perr != nil || u.Host == "" {
		return clean(raw)
	}
	s := u.EscapedPath()
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	if u.Host != p.Host || u.Scheme != p.Scheme {
		s = u.Host + s
	}
	return clean(s)
}

// Page-load view columns: type, size, took, then the URL and the bars.
const loadLabel = "%-6s %6s %7s %s"

// renderPageLoad draws one navigation: a line of its totals and marks, its
// vitals, a time axis, then each request as a bar from its start to its end
// on one scale, coloured by type, in start order, with DOMContentLoaded (D)
// and load (L) marked down every bar's line. It is pure, for golden tests.
func renderPageLoad(l perf.Sample, w int) string {
	rows := sortedByStart(l.Resources)
	var size int64
	total := max(l.LoadTime, l.DOMContentLoaded)
	for _, r := range rows {
		size += r.Size
		total = max(total, r.End())
	}
	total = max(total, 1)
	var b strings.Builder
	head := fmt.Sprintf("Page load %s · %d requests · %s", clean(l.URL), len(rows), sizeText(size))
	if l.DOMContentLoaded > 0 {
		head += " · D DOMContentLoaded " + duration(l.DOMContentLoaded)
	}
	if l.LoadTime > 0 {
		head += " · L load " + duration(l.LoadTime)
	}
	b.WriteString(styleTitle.Render(fit(head, w)) + "\n")
	var vs []string
	for _, v := range vitals(&l) {
		vs = append(vs, v.c.style().Render(v.text))
	}
	if l.FCP > 0 {
		vs = append(vs, "FCP "+duration(l.FCP))
	}
	if l.TTFB > 0 {
		vs = append(vs, "TTFB "+duration(l.TTFB))
	}
	if len(vs) == 0 {
		vs = append(vs, styleDim.Render("no Web Vitals measured"))
	}
	b.WriteString(fit(strings.Join(vs, " · "), w) + "\n")

	uw := min(40, max(10, w/4))
	bw := w - lipgloss.Width(fmt.Sprintf(loadLabel, "", "", "", "")) - uw - 1
	if bw < 10 {
		bw, uw = 10, max(4, w-lipgloss.Width(fmt.Sprintf(loadLabel, "", "", "", ""))-11)
	}
	cell := func(ms float64) int { return min(bw-1, int(ms/total*float64(bw-1)+0.5)) }
	axis := []rune(strings.Repeat(" ", bw))
	mid := duration(total / 2)
	copy(axis, []rune("0"))
	copy(axis[max(0, bw/2-len(mid)/2):], []rune(mid))
	end := duration(total)
	copy(axis[max(0, bw-len(end)):], []rune(end))
	b.WriteString(styleColHead.Render(fmt.Sprintf(loadLabel, "TYPE", "SIZE", "TOOK", padTo("URL", uw))+" "+string(axis)) + "\n")

	dcl, load := -1, -1
	if l.DOMContentLoaded > 0 {
		dcl = cell(l.DOMContentLoaded)
	}
	if l.LoadTime > 0 {
		load = cell(l.LoadTime)
	}
	for i, r := range rows {
		kind := kindOf(r)
		label := fmt.Sprintf(loadLabel, kind, sizeText(r.Size), duration(r.Duration), padTo(fitLeft(shortURL(r.URL, l.URL), uw), uw))
		b.WriteString(label + " " + barLine(cell(r.Start), cell(r.End()), bw, dcl, load, typeStyle(kind)))
		if i < len(rows)-1 || l.ResourcesDropped > 0 {
			b.WriteByte('\n')
		}
	}
	if len(rows) == 0 {
		b.WriteString(styleDim.Render(fit("No requests recorded for this load (an older extension sends none).", w)))
	}
	if l.ResourcesDropped > 0 {
		b.WriteString(styleWarn.Render(fit(fmt.Sprintf("+%d requests not kept (the rows' bound; counted as lost in health)", l.ResourcesDropped), w)))
	}
	return b.String()
}

// barLine is one bar from cell from to cell to of bw, in st, with the
// DOMContentLoaded (D) and load (L) marks where it leaves room.
func barLine(from, to, bw, dcl, load int, st lipgloss.Style) string {
	var b strings.Builder
	blank := func(a, z int) {
		for x := a; x < z; x++ {
			switch x {
			case load:
				b.WriteString(styleErr.Render("L"))
			case dcl:
				b.WriteString(styleHuman.Render("D"))
			default:
				b.WriteByte(' ')
			}
		}
	}
	blank(0, from)
	b.WriteString(st.Render(strings.Repeat("█", to-from+1)))
	blank(to+1, bw)
	return strings.TrimRight(b.String(), " ")
}

// padTo pads s with spaces to w cells.
func padTo(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-lipgloss.Width(s)))
}
