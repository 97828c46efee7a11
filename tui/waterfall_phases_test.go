package tui

import (
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
)

// sampleTimedFetch is a fetch whose entry came with its phases: a new TLS
// connection, then 812 ms waiting for the server.
func sampleTimedFetch() EntriesMsg {
	return EntriesMsg{Network: []capture.NetworkEntry{
		{TS: at(-0.6), Method: "GET", URL: "http://localhost:3000/api/orders?page=2", Status: 200, DurationMS: 861.4, Type: "fetch", Size: 5120,
			Timing: &capture.Timing{DNS: 2.1, Connect: 31.5, TLS: 18.2, Wait: 812.3, Download: 14.6}},
	}}
}

// A fetch/XHR row's phases are drawn as a page load row's are; a row
// without any says so, in words true of both.
func TestWaterfallPhasesOfEitherRowKind(t *testing.T) {
	fetch := capture.NetworkEntry{TS: at(0), Method: "GET", URL: "http://localhost:3000/api/x", DurationMS: 300, Type: "fetch",
		Timing: &capture.Timing{Wait: 250, Download: 40}}
	xhr := fetch
	xhr.Type = "xhr"
	xhr.DurationMS = 340
	load := resourceEntry{Resource: perf.Resource{URL: "http://localhost:3000/app.js", Type: "script", Duration: 340, Wait: 250, Download: 40}}
	for name, r := range map[string]row{"fetch": {src: fetch}, "xhr": {src: xhr}, "load": {src: load}} {
		p := phasesOf(r)
		if p == nil || p.Wait != 250 || p.Download != 40 || p.took != 340 || queued(p) != 50 {
			t.Errorf("%s: phases %+v, want wait 250, download 40 of 340 ms (a fetch's download after its duration), 50 queued", name, p)
			continue
		}
		s := reqSpan{kind: "fetch", url: "/api/x", start: at(0).Time, took: 340, ph: p}
		got := plainView(renderWaterfall([]reqSpan{s}, 0, 120))
		bar := strings.Split(got, "\n")[1] // the selected row's
		if !strings.Contains(got, "queued 50ms · ░ wait (TTFB) 250ms · █ download 40ms") || !strings.Contains(bar, "─░") || strings.Contains(got, "No timing") {
			t.Errorf("%s: the waterfall has no phases:\n%s", name, got)
		}
	}
	bare := fetch
	bare.Timing = nil
	for _, r := range []row{{src: bare}, {src: capture.NetworkEntry{Timing: &capture.Timing{}}}, {src: resourceEntry{}}} {
		if p := phasesOf(r); p != nil {
			t.Errorf("%+v: phases %+v, want none", r.src, p)
		}
	}
	got := plainView(renderWaterfall([]reqSpan{{kind: "fetch", url: "/api/x", start: at(0).Time, took: 300}}, 0, 200))
	if !strings.Contains(got, "No timing breakdown") || strings.Contains(got, "page load's requests") {
		t.Errorf("a row without phases:\n%s", got)
	}
}
