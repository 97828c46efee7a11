//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpio "github.com/chromedp/cdproto/io"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// TestCaptureOnAPageThatNeverLoads: the isolated world first talks to the
// worker at the load event (its bindings cost a page load ~3 ms, issue 12),
// or a second after its start. A page whose load never ends still has its
// console lines delivered and answers a DOM query.
func TestCaptureOnAPageThatNeverLoads(t *testing.T) {
	r := newRig(t, "hang-agent", map[string]any{"log_level": "all"})
	tab := chromedp.FromContext(r.b.ctx).Target
	if _, err := cdp.Call(r.b.ctx, tab, page.Navigate, page.NavigateParams{URL: r.site + "/hang.html"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the line the page logged", func() bool {
		return r.captured(t, map[string]any{"what": "logs", "url_filter": "hang.html"}, "message", "still-loading")
	})
	h := matches(analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#h"}))
	if len(h) != 1 || h[0]["text"] != "still loading" {
		t.Errorf("DOM query on the loading page: %v", h)
	}
	state, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[string](`document.readyState`))
	if err != nil || state == "complete" {
		t.Fatalf("the page loaded after all (%q, %v): the test proves nothing", state, err)
	}
}

// TestPartsRunAfterTheLoad reads Chromium's own timeline (a DevTools trace)
// of one page load: content.js runs before the load event, and the parts
// the worker injects (queries.js, pilot.js, perf.js) only after it, so no
// page pays for them before its load (issue 12).
func TestPartsRunAfterTheLoad(t *testing.T) {
	r := newRig(t, "parts-agent", map[string]any{})
	trace := startTrace(t, r.b.ctx)
	r.open(t, "/capture.html")
	// perf.js, the last part, sends its sample a second after the load.
	waitFor(t, 10*time.Second, "the page-load sample", func() bool {
		pages, _ := observe(t, r.ai, map[string]any{"what": "performance", "url_filter": "capture.html"})["pages"].([]any)
		return len(pages) > 0
	})
	var load float64
	ran := map[string]float64{} // script file → when it was first evaluated
	for _, e := range trace() {
		var d struct {
			URL         string `json:"url"`
			IsMainFrame bool   `json:"isMainFrame"`
		}
		json.Unmarshal(e.Args["data"], &d)
		switch {
		case e.Name == "MarkLoad" && d.IsMainFrame:
			load = e.TS
		case e.Name == "EvaluateScript" && strings.HasPrefix(d.URL, "chrome-extension://"):
			// The first run counts: a part injected again stops at once.
			if u, err := url.Parse(d.URL); err == nil {
				if f := strings.TrimPrefix(u.Path, "/"); ran[f] == 0 || e.TS < ran[f] {
					ran[f] = e.TS
				}
			}
		}
	}
	if load == 0 {
		t.Fatalf("no main-frame load event in the trace; scripts seen: %v", ran)
	}
	if at, ok := ran["content.js"]; !ok || at > load {
		t.Fatalf("content.js was not evaluated before the load (%v, load at %v): the trace proves nothing", ran, load)
	}
	for _, part := range []string{"content/queries.js", "content/pilot.js", "content/perf.js"} {
		at, ok := ran[part]
		if !ok {
			t.Errorf("%s never ran (scripts seen: %v)", part, ran)
		} else if at < load {
			t.Errorf("%s ran %.1f ms before the load event", part, (load-at)/1000)
		}
	}
}

// traceEvent is one event of a Chromium trace, as much of it as tests read.
type traceEvent struct {
	Name string                     `json:"name"`
	TS   float64                    `json:"ts"` // µs
	Args map[string]json.RawMessage `json:"args"`
}

// startTrace starts recording the devtools.timeline trace of the tab in
// ctx; the function it returns stops it and returns the events, read from
// the stream the browser writes them to.
func startTrace(t *testing.T, ctx context.Context) func() []traceEvent {
	t.Helper()
	tab := chromedp.FromContext(ctx).Target
	complete := cdp.Events(ctx, tab, tracing.TracingComplete)
	if _, err := cdp.Call(ctx, tab, tracing.Start, tracing.StartParams{TransferMode: tracing.StartTransferModeReturnAsStream,
		TraceConfig: &tracing.TraceConfig{IncludedCategories: []string{"devtools.timeline"}, ExcludedCategories: []string{"*"}}}); err != nil {
		t.Fatal(err)
	}
	return func() []traceEvent {
		t.Helper()
		if _, err := cdp.Call(ctx, tab, tracing.End, cdp.Empty{}); err != nil {
			t.Fatal(err)
		}
		var stream cdpio.StreamHandle
		for e, err := range complete {
			if err != nil {
				t.Fatalf("trace: %v", err)
			}
			stream = e.Stream
			break
		}
		var raw []byte
		for {
			r, err := cdp.Call(ctx, tab, cdpio.Read, cdpio.ReadParams{Handle: stream})
			if err != nil {
				t.Fatalf("read the trace: %v", err)
			}
			raw = append(raw, r.Data...)
			if r.EOF {
				break
			}
		}
		cdp.Call(ctx, tab, cdpio.Close, cdpio.CloseParams{Handle: stream})
		var out struct {
			TraceEvents []traceEvent `json:"traceEvents"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("decode the trace (%d bytes): %v", len(raw), err)
		}
		return out.TraceEvents
	}
}
