package capture

import (
	"math"
	"testing"
)

// A request's phases are kept as times the store trusts: each finite,
// not negative, at most an hour, to a tenth of a millisecond; none left,
// no timing at all.
func TestNetworkTimingIsValidatedAtIngest(t *testing.T) {
	s := NewStore()
	in := []NetworkEntry{
		{Method: "GET", URL: "http://a.test/1", Timing: &Timing{DNS: math.NaN(), Connect: -3, TLS: math.Inf(1), Wait: 812.345, Download: 4e6}},
		{Method: "GET", URL: "http://a.test/2", Timing: &Timing{DNS: math.Inf(-1), Wait: -0.5}},
		{Method: "GET", URL: "http://a.test/3", Timing: &Timing{DNS: 1.04, Connect: 3600000, TLS: 0.04, Download: 7}},
		{Method: "GET", URL: "http://a.test/4"},
	}
	if n, rej := s.AddNetwork(in); n != len(in) || len(rej) != 0 {
		t.Fatalf("stored %d, rejected %v", n, rej)
	}
	got := map[string]*Timing{}
	for _, e := range s.Network(Query{All: true}).Entries {
		got[e.URL] = e.Timing
	}
	if tm := got["http://a.test/1"]; tm == nil || *tm != (Timing{Wait: 812.3}) {
		t.Errorf("NaN, negative, infinite and past-an-hour phases: got %+v, want only wait 812.3", tm)
	}
	if tm := got["http://a.test/2"]; tm != nil {
		t.Errorf("no phase left: got %+v, want no timing", tm)
	}
	if tm := got["http://a.test/3"]; tm == nil || *tm != (Timing{DNS: 1, Connect: 3600000, Download: 7}) {
		t.Errorf("got %+v, want dns 1, connect 3600000 (an hour is kept), download 7", tm)
	}
	if tm := got["http://a.test/4"]; tm != nil {
		t.Errorf("an entry sent without timing got %+v", tm)
	}
}

// What timing costs an entry's encoding (the history's bytes) is bounded:
// five numbers of at most an hour each.
func TestNetworkTimingCostIsBounded(t *testing.T) {
	e := NetworkEntry{TS: ts(1), Method: "GET", URL: "u", DurationMS: 1}
	bare := len(e.AppendJSON(nil))
	e.Timing = (&Timing{DNS: 3599999.9, Connect: 3599999.9, TLS: 3599999.9, Wait: 3599999.9, Download: 3599999.9}).sanitized()
	withAll := len(e.AppendJSON(nil))
	if d := withAll - bare; d <= 0 || d > 110 {
		t.Errorf("timing of five phases at their largest adds %d bytes, want (0, 110]", d)
	}
	e.Timing = &Timing{Wait: 812.3}
	if d := len(e.AppendJSON(nil)) - bare; d != len(`,"timing":{"wait":812.3}`) {
		t.Errorf("one phase adds %d bytes", d)
	}
}

// A fetch's duration ends at its headers: its whole time adds the
// download; an XHR's includes it; never less than the phases.
func TestNetworkEntryElapsed(t *testing.T) {
	for _, tc := range []struct {
		e    NetworkEntry
		want float64
	}{
		{NetworkEntry{Type: "fetch", DurationMS: 300}, 300},
		{NetworkEntry{Type: "fetch", DurationMS: 300, Timing: &Timing{Wait: 250, Download: 40}}, 340},
		{NetworkEntry{Type: "xhr", DurationMS: 340, Timing: &Timing{Wait: 250, Download: 40}}, 340},
		{NetworkEntry{Type: "xhr", DurationMS: 100, Timing: &Timing{DNS: 5, Connect: 20, Wait: 250, Download: 40}}, 315},
		{NetworkEntry{Type: "fetch", DurationMS: -1}, 0},
	} {
		if got := tc.e.Elapsed(); got != tc.want {
			t.Errorf("%+v %+v: elapsed %v, want %v", tc.e, tc.e.Timing, got, tc.want)
		}
	}
}
