package pointing

import (
	"testing"
	"time"
)

func TestPaceAllowsABurstThenAPersonsPace(t *testing.T) {
	p := NewPace(PicksPerSecond, PickBurst)
	now := time.Unix(1000, 0)
	ok := 0
	for range 300 { // 300 calls in the same instant: the burst only
		if p.Allow(now) {
			ok++
		}
	}
	if ok != PickBurst || p.Refused() != 300-PickBurst {
		t.Fatalf("at once: %d allowed, %d refused", ok, p.Refused())
	}
	// A second later, the pace's worth again; a clock going back gives none.
	later := 0
	for range 3 {
		if p.Allow(now.Add(time.Second)) {
			later++
		}
	}
	if later != PicksPerSecond {
		t.Fatalf("a second later: %d, want %d", later, PicksPerSecond)
	}
	if p.Allow(now) {
		t.Fatal("a clock going back refilled the bucket")
	}
	// A long pause refills to the burst, not beyond.
	ok = 0
	for range 10 {
		if p.Allow(now.Add(time.Hour)) {
			ok++
		}
	}
	if ok != PickBurst {
		t.Fatalf("after an hour: %d allowed, want %d", ok, PickBurst)
	}
}
