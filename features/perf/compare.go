package perf

import (
	"fmt"
	"math"
	"time"
)

// Performance is one page load's metrics, as the performance capture reports
// them. Times are milliseconds; a zero time means "not measured" (a page
// never loads in 0 ms), which is why CLS, where 0 is a real score, is a
// pointer.
type Performance struct {
	LoadTime         float64  `json:"load_time,omitempty"`
	FCP              float64  `json:"fcp,omitempty"`
	LCP              float64  `json:"lcp,omitempty"`
	TTFB             float64  `json:"ttfb,omitempty"`
	DOMContentLoaded float64  `json:"dom_content_loaded,omitempty"`
	CLS              *float64 `json:"cls,omitempty"`
	RequestCount     int      `json:"request_count,omitempty"`
	TransferSize     int64    `json:"transfer_size,omitempty"`
	LongTasks        int      `json:"long_tasks,omitempty"`
	TotalBlocking    float64  `json:"total_blocking_time,omitempty"`
	// At is when the page load was measured: a verification's "after" only
	// counts a load measured after its watch began.
	At time.Time `json:"-"`
}

// LatestFunc returns the newest page-load metrics of a page whose URL contains
// urlFilter (any page when it is empty); ok is false when none was measured.
// The performance capture provides it; nil means no performance data.
type LatestFunc func(urlFilter string) (p Performance, ok bool)

// Regression thresholds, the ones check_performance applies: a metric
// regresses only when both its relative and absolute growth pass, so small
// pages do not flag noise.
const (
	TimingPct     = 50  // load, FCP, LCP, TTFB, DOMContentLoaded: > 50 % ...
	TimingAbsMS   = 200 // ... and > 200 ms
	RequestsPct   = 50  // request count: > 50 % ...
	RequestsAbs   = 5   // ... and > 5 requests
	TransferPct   = 100 // transfer size: > 100 % ...
	TransferAbs   = 100 << 10
	LongTaskPct   = 100  // long tasks: any from 0, or > 100 %
	BlockingAbsMS = 100  // total blocking time: > 100 ms
	CLSAbs        = 0.05 // CLS: > 0.05 absolute
)

// MetricDiff is one metric before and after.
type MetricDiff struct {
	Before     float64 `json:"before"`
	After      float64 `json:"after"`
	Change     string  `json:"change"` // "+191%", "-66%"; "+4" when before was 0
	Regression bool    `json:"regression,omitempty"`
}

// Diff compares two page loads metric by metric; a metric appears only
// when both loads measured it.
type Diff struct {
	LoadTime         *MetricDiff `json:"load_time,omitempty"`
	FCP              *MetricDiff `json:"fcp,omitempty"`
	LCP              *MetricDiff `json:"lcp,omitempty"`
	TTFB             *MetricDiff `json:"ttfb,omitempty"`
	DOMContentLoaded *MetricDiff `json:"dom_content_loaded,omitempty"`
	CLS              *MetricDiff `json:"cls,omitempty"`
	RequestCount     *MetricDiff `json:"request_count,omitempty"`
	TransferSize     *MetricDiff `json:"transfer_size,omitempty"`
	LongTasks        *MetricDiff `json:"long_tasks,omitempty"`
	TotalBlocking    *MetricDiff `json:"total_blocking_time,omitempty"`
}

// Regressions counts the metrics flagged as regressions.
func (d *Diff) Regressions() int {
	if d == nil {
		return 0
	}
	n := 0
	for _, m := range []*MetricDiff{d.LoadTime, d.FCP, d.LCP, d.TTFB, d.DOMContentLoaded, d.CLS,
		d.RequestCount, d.TransferSize, d.LongTasks, d.TotalBlocking} {
		if m != nil && m.Regression {
			n++
		}
	}
	return n
}

// Compare diffs two page loads; nil when either is missing or they
// share no metric.
func Compare(a, b *Performance) *Diff {
	if a == nil || b == nil {
		return nil
	}
	timing := func(x, y float64) *MetricDiff {
		return metric(x, y, x > 0 && y > 0, grew(x, y, TimingPct, TimingAbsMS))
	}
	d := &Diff{
		LoadTime:         timing(a.LoadTime, b.LoadTime),
		FCP:              timing(a.FCP, b.FCP),
		LCP:              timing(a.LCP, b.LCP),
		TTFB:             timing(a.TTFB, b.TTFB),
		DOMContentLoaded: timing(a.DOMContentLoaded, b.DOMContentLoaded),
		TotalBlocking: metric(a.TotalBlocking, b.TotalBlocking, a.TotalBlocking > 0 || b.TotalBlocking > 0,
			b.TotalBlocking-a.TotalBlocking > BlockingAbsMS),
	}
	if a.CLS != nil && b.CLS != nil {
		d.CLS = metric(*a.CLS, *b.CLS, true, *b.CLS-*a.CLS > CLSAbs)
	}
	ra, rb := float64(a.RequestCount), float64(b.RequestCount)
	d.RequestCount = metric(ra, rb, ra > 0 && rb > 0, grew(ra, rb, RequestsPct, RequestsAbs))
	ta, tb := float64(a.TransferSize), float64(b.TransferSize)
	d.TransferSize = metric(ta, tb, ta > 0 && tb > 0, grew(ta, tb, TransferPct, TransferAbs))
	la, lb := float64(a.LongTasks), float64(b.LongTasks)
	d.LongTasks = metric(la, lb, la > 0 || lb > 0, lb > la && (la == 0 || grew(la, lb, LongTaskPct, 0)))
	if *d == (Diff{}) {
		return nil
	}
	return d
}

// grew reports growth past both a percentage and an absolute amount.
func grew(before, after, pct, abs float64) bool {
	delta := after - before
	return delta > abs && before > 0 && delta/before*100 > pct
}

func metric(before, after float64, present, regression bool) *MetricDiff {
	if !present {
		return nil
	}
	return &MetricDiff{Before: before, After: after, Change: Change(before, after), Regression: regression}
}

// Change renders the change from before to after as a whole percentage
// ("+191%", "-66%", "0%"), or as a signed amount when before is 0.
func Change(before, after float64) string {
	if before == 0 {
		if after == 0 {
			return "0%"
		}
		return fmt.Sprintf("%+g", round(after, 3))
	}
	pct := math.Round((after - before) / before * 100)
	if pct == 0 {
		return "0%"
	}
	return fmt.Sprintf("%+.0f%%", pct)
}

// round keeps n decimals, so a CLS of 0.1200000001 reads 0.12.
func round(v float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(v*p) / p
}

// Rounded returns p with times in whole milliseconds and CLS to three
// decimals: sub-millisecond digits are noise that costs the AI tokens.
func (p Performance) Rounded() Performance {
	for _, v := range []*float64{&p.LoadTime, &p.FCP, &p.LCP, &p.TTFB, &p.DOMContentLoaded, &p.TotalBlocking} {
		*v = math.Round(*v)
	}
	if p.CLS != nil {
		c := round(*p.CLS, 3)
		p.CLS = &c
	}
	return p
}
