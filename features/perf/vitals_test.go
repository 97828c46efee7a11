package perf

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// later is a batch of vitals after the sample of the load at t0.
func later(fn func(*Sample)) Sample {
	s := Sample{URL: home + "#tab", Origin: capture.Time{Time: t0}, More: true}
	fn(&s)
	return s
}

// A later batch raises the load's INP, CLS and LCP, never lowers them, and
// observe performance and Check read the current values.
func TestLaterVitalsRaiseNeverLower(t *testing.T) {
	s, _ := newStore()
	if _, err := s.Add(Sample{URL: home, Origin: capture.Time{Time: t0}, LoadTime: 900, LCP: 700, CLS: f(0.05), INP: 120}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name          string
		batch         Sample
		inp, cls, lcp float64
	}{
		{"a slower interaction", later(func(s *Sample) { s.INP = 310 }), 310, 0.05, 700},
		{"a faster one after it", later(func(s *Sample) { s.INP = 200 }), 310, 0.05, 700},
		{"a larger window of shifts replaces CLS", later(func(s *Sample) { s.CLS = f(0.2) }), 310, 0.2, 700},
		{"a smaller one, late", later(func(s *Sample) { s.CLS = f(0.1) }), 310, 0.2, 700},
		{"a later, larger paint", later(func(s *Sample) { s.LCP = 1500 }), 310, 0.2, 1500},
		{"rows only", later(func(s *Sample) { s.Resources = []Resource{{URL: home + "a.png", Type: "img"}} }), 310, 0.2, 1500},
	}
	for _, st := range steps {
		load, _, err := s.AddMore(st.batch)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		snap := s.Snapshots("", 0)[0]
		for _, l := range []Sample{load, snap.Sample} {
			if l.INP != st.inp || *l.CLS != st.cls || l.LCP != st.lcp || l.LoadTime != 900 {
				t.Fatalf("%s: inp %v cls %v lcp %v load %v; want %v %v %v 900", st.name, l.INP, *l.CLS, l.LCP, l.LoadTime, st.inp, st.cls, st.lcp)
			}
		}
	}
	if !strings.Contains(s.Check("").Report, "  INP                   310 ms") {
		t.Errorf("Check's report does not show the current INP:\n%s", s.Check("").Report)
	}
}

// The baseline holds the load's current vitals, and the load's verdict
// follows them: a CLS that grows after the sample regresses the load.
func TestLaterVitalsMoveTheBaselineAndVerdict(t *testing.T) {
	s, _ := newStore()
	load := Sample{URL: home, Origin: capture.Time{Time: t0}, LoadTime: 900, LCP: 700, CLS: f(0.01)}
	for range 3 {
		if _, err := s.Add(load); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Snapshots("", 0)[0].Regressions; len(got) != 0 {
		t.Fatalf("regressions before: %v", got)
	}
	held := s.Loads(0)[0]
	if _, _, err := s.AddMore(later(func(s *Sample) { s.CLS = f(0.3) })); err != nil {
		t.Fatal(err)
	}
	if got := s.Snapshots("", 0)[0]; !slices.Equal(got.Regressions, []string{"cls"}) || got.BaselineLoads != 2 {
		t.Errorf("after the later CLS: regressions %v over %d loads", got.Regressions, got.BaselineLoads)
	}
	p := s.pages[home]
	if c := *p.base.Performance().CLS; math.Abs(c-(0.01+0.01+0.3)/3) > 1e-9 || p.base.Samples != 3 {
		t.Errorf("baseline CLS %v over %d loads, want the load's current 0.3 in place of its 0.01", c, p.base.Samples)
	}
	if *held.CLS != 0.01 {
		t.Errorf("a reader's copy of the load changed under it: CLS %v", *held.CLS)
	}
}

// An update for a load the store does not hold is not a load of its own.
func TestLaterVitalsOfALoadNotHeld(t *testing.T) {
	s, _ := newStore()
	if _, _, err := s.AddMore(later(func(s *Sample) { s.INP = 400 })); !errors.Is(err, ErrNoLoad) {
		t.Fatalf("empty store: %v", err)
	}
	if n := len(s.Loads(0)) + len(s.Snapshots("", 0)); n != 0 {
		t.Fatalf("an update became %d loads", n)
	}
	if _, err := s.Add(Sample{URL: home, Origin: capture.Time{Time: t0}, LoadTime: 900, INP: 120}); err != nil {
		t.Fatal(err)
	}
	next := later(func(s *Sample) { s.INP, s.Origin = 400, capture.Time{Time: t0.Add(time.Minute)} })
	if _, _, err := s.AddMore(next); !errors.Is(err, ErrNoLoad) {
		t.Fatalf("another navigation's update: %v", err)
	}
	if l := s.Loads(0); len(l) != 1 || l[0].INP != 120 {
		t.Errorf("loads after an update of another navigation: %+v", l)
	}
	if !next.HasVitals() || later(func(*Sample) {}).HasVitals() {
		t.Error("HasVitals")
	}
}
