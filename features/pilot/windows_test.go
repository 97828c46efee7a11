package pilot

import (
	"testing"
	"time"
)

func TestWindowsCoverTheAIsActionsOnly(t *testing.T) {
	var w Windows
	t0 := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	end := w.Open(7, t0)
	if !w.Covers(7, t0.Add(time.Second)) {
		t.Fatal("an open window does not cover its tab")
	}
	end(t0.Add(2 * time.Second))
	for _, tc := range []struct {
		tab  int
		at   time.Duration
		want bool
	}{{7, -time.Millisecond, false}, {7, 0, true}, {7, 2400 * time.Millisecond, true}, {7, 3 * time.Second, false}, {8, time.Second, false}} {
		if got := w.Covers(tc.tab, t0.Add(tc.at)); got != tc.want {
			t.Errorf("tab %d at %v: %v, want %v", tc.tab, tc.at, got, tc.want)
		}
	}
	for i := range windowsKept {
		w.Open(9, t0.Add(time.Hour+time.Duration(i)))(t0.Add(time.Hour + time.Duration(i)))
	}
	if w.Covers(7, t0.Add(time.Second)) || len(w.list) != windowsKept {
		t.Fatalf("the oldest window is kept past the bound: %d", len(w.list))
	}
}
