//go:build e2e

package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"
)

// BenchmarkPerfScriptCost measures the main-thread time content/perf.js
// costs one page load of the finder (target < 3 ms): V8's CPU profiler
// samples the tab every 50 µs across the load and the settle until the
// sample is at the server, and every sample with a frame of perf.js on its
// stack (its own code and the browser APIs it calls) counts.
func BenchmarkPerfScriptCost(b *testing.B) {
	r := newRig(b, "bench-agent", map[string]any{})
	last := loadFinder(b, r, nil)["ts"] // the renderer is the site's from here on
	ctx := r.b.ctx
	if _, err := chromedp.Call(ctx, profiler.Enable, cdp.Empty{}); err != nil {
		b.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 50}); err != nil {
		b.Fatal(err)
	}
	var each []float64
	for b.Loop() {
		// Each iteration loads the page five times: a load takes two seconds, so
		// make bench's -benchtime 2s would otherwise measure one load.
		for range 5 {
			if _, err := chromedp.Call(ctx, profiler.Start, cdp.Empty{}); err != nil {
				b.Fatal(err)
			}
			last = loadFinder(b, r, last)["ts"]
			res, err := chromedp.Call(ctx, profiler.Stop, cdp.Empty{})
			if err != nil {
				b.Fatal(err)
			}
			each = append(each, scriptMS(res.Profile, "/content/perf.js"))
		}
	}
	// The mean and the median: one sample the sampler took late carries
	// the whole gap, and a busy machine makes a few such outliers.
	slices.Sort(each)
	var sum float64
	for _, v := range each {
		sum += v
	}
	b.ReportMetric(sum/float64(len(each)), "ms/load")
	b.ReportMetric(each[len(each)/2], "p50-ms/load")
}

// scriptMS is the time of the samples whose stack holds a frame of the
// script whose URL ends with suffix.
func scriptMS(p *profiler.Profile, suffix string) float64 {
	parent := map[int64]int64{}
	in := map[int64]bool{}
	for _, n := range p.Nodes {
		for _, c := range n.Children {
			parent[c] = n.ID
		}
		in[n.ID] = n.CallFrame != nil && strings.HasSuffix(n.CallFrame.URL, suffix)
	}
	var us int64
	for i, id := range p.Samples {
		if i+1 >= len(p.TimeDeltas) {
			break
		}
		for n, ok := id, true; ok; n, ok = parent[n] {
			if in[n] {
				us += p.TimeDeltas[i+1]
				break
			}
		}
	}
	return float64(us) / 1000
}
