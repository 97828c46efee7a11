package perf

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Verdicts of a check.
const (
	Regressed = "regressed"  // at least one metric past its threshold
	OK        = "ok"         // compared, nothing past a threshold
	FirstLoad = "first_load" // nothing to compare with yet: this load set the baseline
	NoData    = "no_data"    // no page matched
)

// PageCheck is one page's verdict.
type PageCheck struct {
	URL         string   `json:"url"`
	Verdict     string   `json:"verdict"`
	Regressions []string `json:"regressions,omitempty"`
}

// Check is what analyze{target:"performance"} answers: a verdict per page
// and a report a person (or the AI) reads in one pass.
type Check struct {
	Verdict string      `json:"verdict"`
	Pages   []PageCheck `json:"pages,omitempty"`
	Report  string      `json:"report"`
}

// Check judges the newest load of each page whose URL contains urlFilter
// against the baseline of the loads before it, newest page first.
func (s *Store) Check(urlFilter string) Check {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := s.matching(urlFilter)
	if len(ps) == 0 {
		msg := "No page load measured yet. Load the page with the extension connected, then ask again."
		if urlFilter != "" {
			msg = fmt.Sprintf("No page load measured for URLs containing %q.", urlFilter)
		}
		return Check{Verdict: NoData, Report: msg}
	}
	c := Check{Verdict: OK}
	compared := false
	var b strings.Builder
	now := s.now()
	for i, p := range ps {
		pc := PageCheck{URL: Key(p.latest.URL), Verdict: OK, Regressions: regressed(p.diff)}
		switch {
		case p.prior.Samples == 0:
			pc.Verdict = FirstLoad
		case len(pc.Regressions) > 0:
			pc.Verdict, c.Verdict = Regressed, Regressed
		}
		if pc.Verdict != FirstLoad {
			compared = true
		}
		c.Pages = append(c.Pages, pc)
		// The newest page and every regressed one in full; the rest in a
		// line each, so twenty pages do not bury the one that matters.
		writePage(&b, p, pc, now, i == 0 || pc.Verdict == Regressed)
	}
	if !compared {
		c.Verdict = FirstLoad
	}
	c.Report = strings.TrimRight(b.String(), "\n")
	return c
}

// writePage renders one page: a headline, then a line per measured metric,
// now against baseline, with regressions marked.
func writePage(b *strings.Builder, p *page, pc PageCheck, now time.Time, detail bool) {
	l := p.latest
	age := now.Sub(l.TS.Time).Round(time.Second)
	switch pc.Verdict {
	case FirstLoad:
		fmt.Fprintf(b, "%s: first load measured %s ago; it is the baseline now.", pc.URL, age)
	case Regressed:
		fmt.Fprintf(b, "%s: REGRESSED (%d metrics) vs a baseline of %d loads, measured %s ago.", pc.URL, len(pc.Regressions), p.prior.Samples, age)
	default:
		fmt.Fprintf(b, "%s: OK vs a baseline of %d loads, measured %s ago.", pc.URL, p.prior.Samples, age)
	}
	if !detail {
		if l.LoadTime > 0 {
			fmt.Fprintf(b, " Load %s.", ms(l.LoadTime))
		}
		b.WriteByte('\n')
		return
	}
	b.WriteByte('\n')
	base := p.prior.Performance()
	cur := l.Performance()
	d := p.diff
	if d == nil {
		d = &Diff{}
	}
	line := func(name string, now, was float64, m *MetricDiff, unit func(float64) string) {
		if now == 0 && (m == nil || m.Before == 0) {
			return
		}
		fmt.Fprintf(b, "  %-18s %9s", name, unit(now))
		if m != nil && p.prior.Samples > 0 {
			fmt.Fprintf(b, "  baseline %9s  %6s", unit(was), m.Change)
			if m.Regression {
				b.WriteString("  REGRESSION")
			}
		}
		b.WriteByte('\n')
	}
	line("load", cur.LoadTime, base.LoadTime, d.LoadTime, ms)
	line("DOMContentLoaded", cur.DOMContentLoaded, base.DOMContentLoaded, d.DOMContentLoaded, ms)
	line("TTFB", cur.TTFB, base.TTFB, d.TTFB, ms)
	line("FCP", cur.FCP, base.FCP, d.FCP, ms)
	line("LCP", cur.LCP, base.LCP, d.LCP, ms)
	if cur.CLS != nil {
		was := 0.0
		if base.CLS != nil {
			was = *base.CLS
		}
		fmt.Fprintf(b, "  %-18s %9s", "CLS", score(*cur.CLS))
		if d.CLS != nil {
			fmt.Fprintf(b, "  baseline %9s  %6s", score(was), d.CLS.Change)
			if d.CLS.Regression {
				b.WriteString("  REGRESSION")
			}
		}
		b.WriteByte('\n')
	}
	if l.INP > 0 {
		fmt.Fprintf(b, "  %-18s %9s\n", "INP", ms(l.INP))
	}
	line("requests", float64(cur.RequestCount), float64(base.RequestCount), d.RequestCount, count)
	line("transfer", float64(cur.TransferSize), float64(base.TransferSize), d.TransferSize, bytes)
	line("long tasks", float64(cur.LongTasks), float64(base.LongTasks), d.LongTasks, count)
	line("blocking time", cur.TotalBlocking, base.TotalBlocking, d.TotalBlocking, ms)
	if l.LongestTask > 0 {
		fmt.Fprintf(b, "  %-18s %9s\n", "longest task", ms(l.LongestTask))
	}
	if len(l.ByType) > 0 {
		types := make([]string, 0, len(l.ByType))
		for t := range l.ByType {
			types = append(types, t)
		}
		// Heaviest first: that is where a budget is won back.
		slices.SortFunc(types, func(x, y string) int {
			return cmp.Or(cmp.Compare(l.ByType[y].TransferSize, l.ByType[x].TransferSize), strings.Compare(x, y))
		})
		parts := make([]string, len(types))
		for i, t := range types {
			parts[i] = fmt.Sprintf("%s %d (%s)", t, l.ByType[t].Count, bytes(float64(l.ByType[t].TransferSize)))
		}
		fmt.Fprintf(b, "  %-18s %s\n", "by type", strings.Join(parts, ", "))
	}
}

func ms(v float64) string {
	if v >= 10000 {
		return fmt.Sprintf("%.1f s", v/1000)
	}
	return fmt.Sprintf("%.0f ms", v)
}

func count(v float64) string { return fmt.Sprintf("%.0f", v) }

func score(v float64) string { return fmt.Sprintf("%.3f", math.Round(v*1000)/1000) }

func bytes(v float64) string {
	switch {
	case v >= 1<<20:
		return fmt.Sprintf("%.1f MB", v/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.0f KB", v/(1<<10))
	}
	return fmt.Sprintf("%.0f B", v)
}
