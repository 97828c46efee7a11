package perf

import (
	"fmt"
	"testing"
	"time"
)

// fullStore holds MaxPages pages, each with a warmed-up baseline and a
// newest load that regressed, with a full resource breakdown.
func fullStore() *Store {
	s, c := newStore()
	for i := range MaxPages {
		u := fmt.Sprintf("http://localhost:3000/page/%d", i)
		for j := range Warmup + 2 {
			c.t = c.t.Add(time.Second)
			smp := Sample{URL: u, LoadTime: 1000, FCP: 300, LCP: 800, TTFB: 90, DOMContentLoaded: 600, CLS: f(0.01),
				RequestCount: 20, TransferSize: 500 << 10, ByType: map[string]Resources{}}
			if j == Warmup+1 {
				smp.LoadTime, smp.LongTasks, smp.TotalBlocking, smp.LongestTask = 2500, 3, 300, 180
			}
			for k := range MaxTypes {
				smp.ByType[fmt.Sprint("type", k)] = Resources{Count: k + 1, TransferSize: int64(k) << 10}
			}
			s.Add(smp)
		}
	}
	return s
}

func BenchmarkCheckFullStore(b *testing.B) {
	s := fullStore()
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(s.Check("").Report)
	}
	b.ReportMetric(float64(n), "bytes/report")
}

func BenchmarkAdd(b *testing.B) {
	s := fullStore()
	smp := Sample{URL: "http://localhost:3000/page/3", LoadTime: 1000, FCP: 300, CLS: f(0.01), RequestCount: 20}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Add(smp); err != nil {
			b.Fatal(err)
		}
	}
}
