package perf

import (
	"encoding/json"
	"testing"
)

// The check_performance thresholds: relative AND absolute for timings,
// requests and transfer; from-zero or doubling for long tasks; absolute for
// blocking time and CLS.
func TestCompareThresholds(t *testing.T) {
	for _, tc := range []struct {
		name       string
		a, b       Performance
		metric     func(*Diff) *MetricDiff
		change     string
		regression bool
	}{
		{"load +191%", Performance{LoadTime: 1100}, Performance{LoadTime: 3200}, lt, "+191%", true},
		{"load faster", Performance{LoadTime: 3200}, Performance{LoadTime: 1100}, lt, "-66%", false},
		{"load +60% but only +60ms", Performance{LoadTime: 100}, Performance{LoadTime: 160}, lt, "+60%", false},
		{"load +300ms but only +30%", Performance{LoadTime: 1000}, Performance{LoadTime: 1300}, lt, "+30%", false},
		{"fcp doubled", Performance{FCP: 400}, Performance{FCP: 900}, func(d *Diff) *MetricDiff { return d.FCP }, "+125%", true},
		{"lcp +216%", Performance{LCP: 380}, Performance{LCP: 1200}, func(d *Diff) *MetricDiff { return d.LCP }, "+216%", true},
		{"ttfb steady", Performance{TTFB: 120}, Performance{TTFB: 120}, func(d *Diff) *MetricDiff { return d.TTFB }, "0%", false},
		{"requests 12→47", Performance{RequestCount: 12}, Performance{RequestCount: 47}, rc, "+292%", true},
		{"requests 4→8: +100% but +4", Performance{RequestCount: 4}, Performance{RequestCount: 8}, rc, "+100%", false},
		{"transfer 340KB→2.4MB", Performance{TransferSize: 340000}, Performance{TransferSize: 2400000}, ts, "+606%", true},
		{"transfer 10KB→60KB: +500% but +50KB", Performance{TransferSize: 10000}, Performance{TransferSize: 60000}, ts, "+500%", false},
		{"long tasks from 0", Performance{}, Performance{LongTasks: 4}, lo, "+4", true},
		{"long tasks 2→3", Performance{LongTasks: 2}, Performance{LongTasks: 3}, lo, "+50%", false},
		{"long tasks 2→5", Performance{LongTasks: 2}, Performance{LongTasks: 5}, lo, "+150%", true},
		{"blocking +380ms", Performance{}, Performance{TotalBlocking: 380}, tb, "+380", true},
		{"blocking +80ms", Performance{TotalBlocking: 100}, Performance{TotalBlocking: 180}, tb, "+80%", false},
		{"cls 0.02→0.12", Performance{CLS: f(0.02)}, Performance{CLS: f(0.12)}, cl, "+500%", true},
		{"cls 0→0.04", Performance{CLS: f(0)}, Performance{CLS: f(0.04)}, cl, "+0.04", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Compare(&tc.a, &tc.b)
			if d == nil || tc.metric(d) == nil {
				t.Fatalf("metric missing from %+v", d)
			}
			m := tc.metric(d)
			if m.Change != tc.change || m.Regression != tc.regression {
				t.Fatalf("change %q regression %v, want %q %v", m.Change, m.Regression, tc.change, tc.regression)
			}
			if want := map[bool]int{true: 1}[tc.regression]; d.Regressions() != want {
				t.Fatalf("regressions %d, want %d", d.Regressions(), want)
			}
		})
	}
}

func lt(d *Diff) *MetricDiff { return d.LoadTime }
func rc(d *Diff) *MetricDiff { return d.RequestCount }
func ts(d *Diff) *MetricDiff { return d.TransferSize }
func lo(d *Diff) *MetricDiff { return d.LongTasks }
func tb(d *Diff) *MetricDiff { return d.TotalBlocking }
func cl(d *Diff) *MetricDiff { return d.CLS }

func TestCompareOnlySharedMetrics(t *testing.T) {
	if Compare(nil, &Performance{LoadTime: 1}) != nil || Compare(&Performance{LoadTime: 1}, nil) != nil {
		t.Fatal("a diff without both sides")
	}
	if d := Compare(&Performance{LoadTime: 1000}, &Performance{FCP: 300}); d != nil {
		t.Fatalf("no shared metric, got %+v", d)
	}
	d := Compare(&Performance{LoadTime: 1100, RequestCount: 12, TransferSize: 340000}, &Performance{LoadTime: 3200, RequestCount: 47, TransferSize: 2400000})
	b, _ := json.Marshal(d)
	want := `{"load_time":{"before":1100,"after":3200,"change":"+191%","regression":true},` +
		`"request_count":{"before":12,"after":47,"change":"+292%","regression":true},` +
		`"transfer_size":{"before":340000,"after":2400000,"change":"+606%","regression":true}}`
	if string(b) != want {
		t.Fatalf("JSON\n got %s\nwant %s", b, want)
	}
}
