//go:build e2e

package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// BenchmarkScreenshot measures a viewport screenshot at the default
// settings end to end: MCP call over stdio → server → extension socket →
// captureVisibleTab → back (the test's decoding of the image apart). Calls are 600 ms apart, outside the
// timing, so Chrome's two captures a second are never what is measured.
// Run with -run '^$' -bench Screenshot -benchtime 20x.
func BenchmarkScreenshot(b *testing.B) {
	r := newRig(b, "bench-shot", map[string]any{})
	for _, c := range []struct {
		name, path string
		w, h       int64
		args       map[string]any
	}{
		{"one_box_800x600", "/shot-box.html", 800, 600, nil}, {"text_800x600", "/shot-text.html", 800, 600, nil},
		{"box_and_password_800x600", "/shot.html", 800, 600, nil},
		{"one_box_1280x800", "/shot-box.html", 1280, 800, nil}, {"text_1280x800", "/shot-text.html", 1280, 800, nil},
		// Full width, as chrome-devtools-mcp answers: the browser's own encoding, nothing scaled.
		{"text_1280x800_full_width", "/shot-text.html", 1280, 800, map[string]any{"max_width": 1280}},
	} {
		b.Run(c.name, func(b *testing.B) {
			resizeWindow(b, r.b.ctx, c.w, c.h)
			r.open(b, c.path)
			screenshot(b, r.ai, c.args)
			// The page's cost: its main thread's tasks over 50 ms while screenshots are taken.
			if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`window.__longTasks = 0;
				new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks += e.duration; }).observe({type: 'longtask'}); true`)); err != nil {
				b.Fatal(err)
			}
			var lat []time.Duration
			var size int
			for b.Loop() {
				b.StopTimer()
				time.Sleep(600 * time.Millisecond)
				b.StartTimer()
				s := screenshot(b, r.ai, c.args)
				lat = append(lat, s.took)
				if s.code != "" {
					b.Fatalf("%s %s", s.code, s.msg)
				}
				size = len(s.raw)
			}
			slices.Sort(lat)
			p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
			b.ReportMetric(p(0.5), "p50-ms")
			b.ReportMetric(p(0.95), "p95-ms")
			b.ReportMetric(float64(size)/1024, "KB")
			long, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[float64](`window.__longTasks`))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(long/float64(len(lat)), "page-longtask-ms/op")
		})
	}
}

// resizeWindow sets the outer size of the tab's browser window.
func resizeWindow(t testing.TB, ctx context.Context, w, h int64) {
	t.Helper()
	c := chromedp.FromContext(ctx)
	win, err := cdp.Call(ctx, c.Browser, cdpbrowser.GetWindowForTarget, cdpbrowser.GetWindowForTargetParams{TargetID: c.Target.TargetID})
	if err == nil {
		_, err = cdp.Call(ctx, c.Browser, cdpbrowser.SetWindowBounds, cdpbrowser.SetWindowBoundsParams{WindowID: win.WindowID,
			Bounds: &cdpbrowser.Bounds{Width: w, Height: h, WindowState: cdpbrowser.WindowStateNormal}})
	}
	if err != nil {
		t.Fatalf("resize: %v", err)
	}
}
