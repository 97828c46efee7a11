package perf

// The metrics a baseline averages, in Performance order.
const (
	load = iota
	fcp
	lcp
	ttfb
	dcl
	cls
	requests
	transfer
	longTasks
	blocking
	nMetrics
)

// avg is one metric's rolling average over the n loads that measured it.
type avg struct {
	v float64
	n int
}

// add folds x in: an even average over the first Warmup loads, then a
// weighted one where the newest load counts RecentWeight, so the baseline
// follows a lasting change within a few loads but one slow load barely moves it.
func (a *avg) add(x float64) {
	a.n++
	w := 1 / float64(a.n)
	if a.n > Warmup {
		w = RecentWeight
	}
	a.v += (x - a.v) * w
}

// Baseline is a page's rolling weighted average of its loads.
type Baseline struct {
	Samples int
	m       [nMetrics]avg
}

func values(p Performance) (v [nMetrics]float64, has [nMetrics]bool) {
	v = [nMetrics]float64{p.LoadTime, p.FCP, p.LCP, p.TTFB, p.DOMContentLoaded, 0,
		float64(p.RequestCount), float64(p.TransferSize), float64(p.LongTasks), p.TotalBlocking}
	for i := range v {
		has[i] = v[i] > 0
	}
	if p.CLS != nil {
		v[cls], has[cls] = *p.CLS, true
	}
	// A load with no long tasks measured zero of them and zero blocking:
	// that is data, so the averages come down after a fix.
	has[longTasks], has[blocking] = true, true
	return v, has
}

func (b *Baseline) fold(p Performance) {
	v, has := values(p)
	for i := range v {
		if has[i] {
			b.m[i].add(v[i])
		}
	}
	b.Samples++
}

// Performance is the baseline in the shape Compare compares;
// a metric no load measured stays zero ("not measured").
func (b *Baseline) Performance() Performance {
	p := Performance{
		LoadTime: b.m[load].v, FCP: b.m[fcp].v, LCP: b.m[lcp].v, TTFB: b.m[ttfb].v, DOMContentLoaded: b.m[dcl].v,
		RequestCount: int(b.m[requests].v + .5), TransferSize: int64(b.m[transfer].v + .5),
		LongTasks: int(b.m[longTasks].v + .5), TotalBlocking: b.m[blocking].v,
	}
	if b.m[cls].n > 0 {
		c := b.m[cls].v
		p.CLS = &c
	}
	return p
}

// regressed names the metrics a diff flags, in report order.
func regressed(d *Diff) []string {
	if d == nil {
		return nil
	}
	var out []string
	for _, m := range []struct {
		name string
		d    *MetricDiff
	}{{"load_time", d.LoadTime}, {"fcp", d.FCP}, {"lcp", d.LCP}, {"ttfb", d.TTFB}, {"dom_content_loaded", d.DOMContentLoaded},
		{"cls", d.CLS}, {"request_count", d.RequestCount}, {"transfer_size", d.TransferSize},
		{"long_tasks", d.LongTasks}, {"total_blocking_time", d.TotalBlocking}} {
		if m.d != nil && m.d.Regression {
			out = append(out, m.name)
		}
	}
	return out
}
