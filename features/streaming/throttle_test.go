package streaming

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// server5xx is a distinct significant event per n.
func server5xx(ms, n int) any {
	return req(ms, "GET", fmt.Sprintf("http://localhost:3000/api/item%c", 'a'+n%26)+fmt.Sprint(n/26), 500)
}

func TestThrottle(t *testing.T) {
	type send struct {
		at     time.Duration
		events int
	}
	tests := []struct {
		name     string
		throttle int
		steps    []step
		want     []send
	}{
		{"one event waits out the batch window", 0, []step{steps(0, server5xx(0, 0))}, []send{{sec(2), 1}}},
		{"events within the batch window go together", 0, []step{
			steps(0, server5xx(0, 0)), steps(sec(1), server5xx(1000, 1)), steps(1900*time.Millisecond, server5xx(1900, 2)),
		}, []send{{sec(2), 3}}},
		{"an event after the window waits for the throttle gap", 0, []step{
			steps(0, server5xx(0, 0)), steps(sec(3), server5xx(3000, 1)),
		}, []send{{sec(2), 1}, {sec(7), 1}}},
		{"events held by the throttle join the batch", 10, []step{
			steps(0, server5xx(0, 0)), steps(sec(3), server5xx(3000, 1)), steps(sec(9), server5xx(9000, 2)),
		}, []send{{sec(2), 1}, {sec(12), 2}}},
		{"after a quiet spell the batch window alone counts", 10, []step{
			steps(0, server5xx(0, 0)), steps(sec(30), server5xx(30000, 1)),
		}, []send{{sec(2), 1}, {sec(32), 1}}},
		{"throttle of 1 s still batches 2 s", 1, []step{
			steps(0, server5xx(0, 0)), steps(sec(2), server5xx(2000, 1)),
		}, []send{{sec(2), 1}, {sec(4), 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Update{ThrottleSeconds: tc.throttle})
			for _, st := range tc.steps {
				r.at(st.d, st.entries...)
			}
			r.until(r.clk.t.Sub(t0) + 2*time.Minute)
			var got []send
			for _, d := range r.got {
				got = append(got, send{d.at.Sub(t0), len(eventsOf(d.n))})
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("sends %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRateCap(t *testing.T) {
	tests := []struct {
		name    string
		every   time.Duration
		dropped bool
	}{
		// 20 a minute: the cap holds some back for a while, all arrive.
		{"held back, then delivered", 3 * time.Second, false},
		// 60 a minute: more wait behind the cap than a notification carries.
		{"more than the bound: counted as dropped", time.Second, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Update{ThrottleSeconds: 1})
			n := int(3 * time.Minute / tc.every)
			for i := range n {
				d := time.Duration(i) * tc.every
				r.at(d, server5xx(int(d/time.Millisecond), i))
			}
			r.until(3*time.Minute + 5*time.Minute)
			for i, d := range r.got {
				if j := i + RatePerMinute; j < len(r.got) && r.got[j].at.Sub(d.at) < time.Minute {
					t.Fatalf("sends %d and %d are %v apart: more than %d a minute", i, j, r.got[j].at.Sub(d.at), RatePerMinute)
				}
			}
			seen, dropped := map[string]int{}, 0
			for _, d := range r.got {
				dropped += d.n.Dropped
				for _, m := range eventsOf(d.n) {
					seen[m]++
				}
			}
			for m, c := range seen {
				if c != 1 {
					t.Errorf("%q delivered %d times", m, c)
				}
			}
			if len(seen)+dropped != n {
				t.Errorf("delivered %d + dropped %d != %d observed", len(seen), dropped, n)
			}
			if (dropped > 0) != tc.dropped {
				t.Errorf("dropped %d", dropped)
			}
			if len(r.got) < 3*RatePerMinute {
				t.Errorf("only %d notifications in over three minutes: the cap allows %d", len(r.got), 3*RatePerMinute)
			}
		})
	}
}

func TestOverflowIsCountedInTheNextNotification(t *testing.T) {
	r := newRig(t, Update{})
	var burst []any
	for i := range MaxPending + 15 {
		burst = append(burst, click(i*10, fmt.Sprintf("#b%d", i)), click(i*10+1, fmt.Sprintf("#b%d", i)), click(i*10+2, fmt.Sprintf("#b%d", i)))
	}
	r.at(0, burst...)
	r.at(sec(1), server5xx(1000, 0)) // an error displaces a waiting warning
	r.until(sec(10))
	if len(r.got) != 1 {
		t.Fatalf("want 1 notification, got %d", len(r.got))
	}
	n := r.got[0].n
	if len(n.Events) != MaxPending || n.Dropped != 16 {
		t.Fatalf("want %d events and 16 dropped, got %d and %d", MaxPending, len(n.Events), n.Dropped)
	}
	if b, _ := json.Marshal(n.Params()); !strings.Contains(string(b), `"dropped":16`) {
		t.Errorf("Params lost the drop count: %s", b)
	}
	if n.Severity != SeverityError || n.Events[MaxPending-1].Category != NetworkErrors || n.Category != "" {
		t.Errorf("the error should be in the batch and set its severity: %+v", n)
	}
	r.at(sec(20), server5xx(20000, 1))
	r.until(sec(30))
	if len(r.got) != 2 || r.got[1].n.Dropped != 0 {
		t.Errorf("the drop count is reported once: %+v", r.got)
	}
}

func TestDedupWindow(t *testing.T) {
	r := newRig(t, Update{})
	e := req(0, "GET", "http://localhost:3000/api/x", 500)
	r.at(0, e)
	r.at(sec(10), e) // 8 s after it was sent: suppressed
	r.at(sec(31), e) // 29 s after: suppressed
	r.at(sec(33), e) // 31 s after: news again
	r.until(sec(60))
	if got := len(r.got); got != 2 || !r.got[1].at.Equal(t0.Add(sec(35))) {
		t.Fatalf("want sends at 2 s and 35 s, got %+v", r.got)
	}
}

func TestRepeatsWhileWaitingAreCounted(t *testing.T) {
	r := newRig(t, Update{})
	e := req(0, "GET", "http://localhost:3000/api/x?try=1", 500)
	r.at(0, e, e, req(500, "GET", "http://localhost:3000/api/x?try=2", 500))
	r.until(sec(5))
	if len(r.got) != 1 || r.got[0].n.Count != 3 || len(r.got[0].n.Events) != 0 {
		t.Fatalf("want one event counted 3 times, got %+v", r.got)
	}
}

func TestDisableDropsWhatWaitsAndStops(t *testing.T) {
	r := newRig(t, Update{})
	r.at(0, server5xx(0, 0))
	if _, err := r.s.Configure(Update{Enabled: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	r.at(sec(1), server5xx(1000, 1), consoleErr(1000, "boom"))
	r.until(sec(60))
	if len(r.got) != 0 {
		t.Fatalf("sent while disabled: %+v", r.got)
	}
	// Enabled again: a clean slate, the old error is new again.
	if _, err := r.s.Configure(Update{Enabled: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	r.at(sec(61), consoleErr(61000, "boom"))
	r.until(sec(70))
	if got := r.messages(); len(got) != 1 || got[0] != "New error: boom" {
		t.Fatalf("after re-enabling got %q", got)
	}
}

func TestTickNextIsZeroWhenIdle(t *testing.T) {
	r := newRig(t, Update{})
	if n, next := r.s.Tick(t0); n != nil || !next.IsZero() {
		t.Fatalf("idle streamer: %v, %v", n, next)
	}
	r.at(0, click(0, "#a"))
	if n, next := r.s.Tick(t0); n != nil || !next.IsZero() {
		t.Fatalf("an insignificant entry left work: %v, %v", n, next)
	}
}
