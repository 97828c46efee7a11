//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// pagePhases are the phases of testdata/fixtures/bench.html, in order.
var pagePhases = []string{"console", "errors", "network", "whole"}

// BenchmarkPageCost is issue 12's page benchmark: the workload page (10,000
// console.log, 1,000 console.error with an Error, 200 POST fetches then 500
// WebSocket echoes) and a page load with 50 resources, timed inside the page
// in two headless Chromiums, one with the extension (default settings, the
// real server behind it) and one without, rounds alternated in one process.
// It prints medians and ratios; it asserts no timing.
//
// PAGE_BENCH_ROUNDS sets the rounds (default 7, plus one warm-up each side).
// By default the tabs run as a user's page does, with no DevTools client
// listening (chromedp's Runtime, Log, Network, DOM and CSS domains are
// turned off after attaching); PAGE_BENCH_DEVTOOLS=1 keeps them on, which
// is how the first figures were taken (every console call then also
// goes to the CDP client).
func BenchmarkPageCost(b *testing.B) {
	rounds := 7
	if n, err := strconv.Atoi(os.Getenv("PAGE_BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	devtools := os.Getenv("PAGE_BENCH_DEVTOOLS") != ""

	port := freePort(b)
	srv := exec.Command(binPath, "--headless", "--port", strconv.Itoa(port))
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	waitFor(b, 5*time.Second, "server", func() bool { return health(port) != nil })
	site := fixtureServer(b)

	sides := []*pageSide{
		{name: "without", ctx: startChromium(b, "")},
		{name: "with", ctx: startChromium(b, extensionFor(b, "http://127.0.0.1:"+strconv.Itoa(port)))},
	}
	for _, s := range sides {
		s.samples = map[string][]float64{}
		if !devtools {
			quietTab(b, s.ctx)
		}
		if _, err := cdp.Call(s.ctx, chromedp.FromContext(s.ctx).Target, performance.Enable, performance.EnableParams{}); err != nil {
			b.Fatal(err)
		}
	}
	for round := 0; round <= rounds; round++ {
		order := sides
		if round%2 == 1 {
			order = []*pageSide{sides[1], sides[0]}
		}
		for _, s := range order {
			s.run(b, site, round > 0) // round 0 warms both up and is not counted
		}
	}

	without, with := sides[0], sides[1]
	var out strings.Builder
	mode := "no DevTools client on the tab"
	if devtools {
		mode = "chromedp's DevTools domains on (PAGE_BENCH_DEVTOOLS)"
	}
	fmt.Fprintf(&out, "\n%d rounds alternated, %s; medians in ms, [min–max] of the per-round ratio\n", rounds, mode)
	fmt.Fprintf(&out, "%-10s %10s %10s %7s  %s\n", "phase", "without", "with", "ratio", "per-round ratios")
	for _, p := range append(slices.Clone(pagePhases), "load", "load-js") {
		w, x := median(without.samples[p]), median(with.samples[p])
		lo, hi := ratioRange(without.samples[p], with.samples[p])
		fmt.Fprintf(&out, "%-10s %10.1f %10.1f %7.2f  [%.2f–%.2f]\n", p, w, x, x/w, lo, hi)
	}
	// The page-load cost is the script time the extension adds to the load
	// (its scripts at document_start, its listeners): the wall-clock load
	// time, printed above, varies by far more than that between loads.
	loadCost := median(with.samples["load-js"]) - median(without.samples["load-js"])
	logCost := (median(with.samples["console"]) - median(without.samples["console"])) / 10000
	errCost := (median(with.samples["errors"]) - median(without.samples["errors"])) / 1000
	fmt.Fprintf(&out, "page-load cost %.2f ms; console.log (level not captured) %.4f ms/call; captured console.error %.4f ms/call\n",
		loadCost, logCost, errCost)
	b.Log(out.String())
	b.ReportMetric(median(with.samples["whole"])/median(without.samples["whole"]), "whole-ratio")
	b.ReportMetric(loadCost, "load-ms")
	b.ReportMetric(logCost*1000, "log-us/call")
	b.ReportMetric(errCost*1000, "error-us/call")
}

// pageSide is one Chromium and what was measured in it.
type pageSide struct {
	name    string
	ctx     context.Context
	samples map[string][]float64
}

// run times the workload on a fresh page, then three loads of the
// 50-resource page: loadEventStart ("load") and the main thread's script
// time for the document, every world included ("load-js", from CDP's
// Performance domain).
func (s *pageSide) run(b *testing.B, site string, keep bool) {
	if err := chromedp.Do(s.ctx, chromedp.Navigate(site+"/bench.html")); err != nil {
		b.Fatalf("%s: open bench page: %v", s.name, err)
	}
	// A page is used a moment after it loads: by then the content script has
	// told the page script the capture settings (until then it captures all).
	time.Sleep(200 * time.Millisecond)
	res, err := chromedp.Run(s.ctx, chromedp.Evaluate[map[string]float64](`runWorkload()`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.Fatalf("%s: workload: %v", s.name, err)
	}
	for i := 0; i < 3; i++ {
		if err := chromedp.Do(s.ctx, chromedp.Navigate(site+"/bench-load.html")); err != nil {
			b.Fatalf("%s: open load page: %v", s.name, err)
		}
		ms, err := chromedp.Run(s.ctx, chromedp.Evaluate[float64](`window.__res === 20 ? performance.getEntriesByType('navigation')[0].loadEventStart : -1`))
		if err != nil || ms < 0 {
			b.Fatalf("%s: load timing: %v %v", s.name, ms, err)
		}
		m, err := cdp.Call(s.ctx, chromedp.FromContext(s.ctx).Target, performance.GetMetrics, cdp.Empty{})
		if err != nil {
			b.Fatalf("%s: metrics: %v", s.name, err)
		}
		script := -1.0
		for _, x := range m.Metrics {
			if x.Name == "ScriptDuration" { // this document's, all worlds
				script = x.Value * 1000
			}
		}
		if keep {
			s.samples["load"] = append(s.samples["load"], ms)
			s.samples["load-js"] = append(s.samples["load-js"], script)
		}
	}
	if !keep {
		return
	}
	for _, p := range pagePhases {
		v, ok := res[p]
		if !ok {
			b.Fatalf("%s: no %s in %v", s.name, p, res)
		}
		s.samples[p] = append(s.samples[p], v)
	}
}

// quietTab turns off the DevTools domains chromedp enables, so console
// calls and requests are not also reported to this process.
func quietTab(b *testing.B, ctx context.Context) {
	tab := chromedp.FromContext(ctx).Target
	for _, m := range []cdp.Command[cdp.Empty, cdp.Empty]{runtime.Disable, log.Disable, network.Disable, css.Disable, dom.Disable} {
		if _, err := cdp.Call(ctx, tab, m, cdp.Empty{}); err != nil {
			b.Fatalf("quiet the tab: %s: %v", m.Method, err)
		}
	}
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratioRange is the smallest and largest with/without ratio of samples
// taken in the same round.
func ratioRange(without, with []float64) (lo, hi float64) {
	for i := range min(len(without), len(with)) {
		r := with[i] / without[i]
		if i == 0 || r < lo {
			lo = r
		}
		if i == 0 || r > hi {
			hi = r
		}
	}
	return lo, hi
}
