//go:build e2e

package e2e

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkAct measures the AI's actions end to end through MCP stdio: a
// click on a static page (the answer whole, and without the settle window:
// the dispatch) that changes its DOM and one that changes nothing, typing 20
// characters, and a navigation to a loaded page. The settle window (the DOM
// quiet for 300 ms after a change, 150 ms when nothing changed) is most of a
// static click's answer. Run with -run '^$' -bench Act -benchtime 20x.
func BenchmarkAct(b *testing.B) {
	r := newRig(b, "bench-act", map[string]any{})
	page := r.open(b, "/act.html")
	r.setPilot(b, true)
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"click_static", map[string]any{"action": "click", "selector": "#add"}},
		{"click_no_change", map[string]any{"action": "click", "selector": "#hoverme"}},
		{"type_20_chars", map[string]any{"action": "type", "selector": "#q", "text": "twenty characters!!!"}},
		{"navigate_loaded_page", map[string]any{"action": "navigate", "url": page}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var whole, dispatch []time.Duration
			for b.Loop() {
				start := time.Now()
				out, isErr, err := callTool(r.ai, "interact", c.args)
				took := time.Since(start)
				if err != nil || isErr {
					b.Fatalf("%v %v", out, err)
				}
				settle, _ := out["settle_ms"].(float64)
				whole = append(whole, took)
				dispatch = append(dispatch, took-time.Duration(settle*float64(time.Millisecond)))
			}
			for _, m := range []struct {
				unit string
				d    []time.Duration
			}{{"whole", whole}, {"dispatch", dispatch}} {
				slices.Sort(m.d)
				p := func(q float64) float64 { return float64(m.d[int(q*float64(len(m.d)-1))].Microseconds()) / 1000 }
				b.ReportMetric(p(0.25), m.unit+"-p25-ms")
				b.ReportMetric(p(0.5), m.unit+"-p50-ms")
				b.ReportMetric(p(0.75), m.unit+"-p75-ms")
			}
		})
	}
}
