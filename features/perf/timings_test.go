package perf

import (
	"fmt"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Each load keeps its timings, also a page's earlier loads (the newest
// sample per page does not); a load's later batch does not add another,
// and the oldest go past MaxTimings.
func TestTimingsPerLoad(t *testing.T) {
	s := NewStore(func() time.Time { return t0 })
	load := func(url string, tab int, origin time.Time, dcl float64) Sample {
		return Sample{TS: capture.Time{Time: origin.Add(time.Second)}, URL: url, TabID: tab, Origin: capture.Time{Time: origin},
			DOMContentLoaded: dcl, LoadTime: dcl + 50}
	}
	for i, dcl := range []float64{87, 60} {
		if _, err := s.Add(load("http://a.test/shop", 3, t0.Add(time.Duration(i)*time.Minute), dcl)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Add(load("http://a.test/shop", 3, t0.Add(time.Minute), 61)); err != nil { // the same load again
		t.Fatal(err)
	}
	if _, err := s.Add(Sample{URL: "http://a.test/old", DOMContentLoaded: 5}); err != nil { // no origin: nothing to count from
		t.Fatal(err)
	}
	got := s.Timings()
	if len(got) != 2 || got[0].DOMContentLoaded != 87 || got[0].Load != 137 || got[1].DOMContentLoaded != 61 ||
		got[1].Tab != 3 || !got[1].Start.Equal(t0.Add(time.Minute)) {
		t.Fatalf("timings %+v", got)
	}
	for i := range MaxTimings + 5 {
		if _, err := s.Add(load(fmt.Sprintf("http://a.test/p%d", i), 1, t0.Add(time.Duration(i)*time.Hour), 10)); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Timings(); len(got) != MaxTimings || got[0].URL != "http://a.test/p5" {
		t.Fatalf("%d timings, the oldest %s", len(got), got[0].URL)
	}
	s.Clear()
	if len(s.Timings()) != 0 {
		t.Fatal("Clear kept timings")
	}
}
