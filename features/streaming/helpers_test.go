package streaming

import (
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// t0 is where every test's clock starts.
var t0 = time.Date(2026, 1, 20, 14, 30, 0, 0, time.UTC)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// rig is an enabled streamer on a clock the test moves.
type rig struct {
	t   *testing.T
	clk *clock
	s   *Streamer
	got []delivery
}

type delivery struct {
	at time.Time
	n  Notification
}

func newRig(t *testing.T, u Update) *rig {
	t.Helper()
	clk := &clock{t0}
	s := New(Options{Now: clk.now, Secrets: fakeSecrets})
	on := true
	u.Enabled = &on
	if _, err := s.Configure(u); err != nil {
		t.Fatal(err)
	}
	return &rig{t: t, clk: clk, s: s}
}

// fakeSecrets finds an AWS-style key id anywhere in the request.
func fakeSecrets(method, url, body string) string {
	if strings.Contains(url, "AKIA") || strings.Contains(body, "AKIA") {
		return "aws_access_key"
	}
	return ""
}

// at moves the clock to t0+d, delivering every notification that falls due
// on the way at its due time, then observes entries at t0+d.
func (r *rig) at(d time.Duration, entries ...any) {
	r.t.Helper()
	r.until(d)
	for _, e := range entries {
		r.s.Observe(e)
	}
}

// until delivers what falls due up to t0+d, stepping the clock as Run's
// timer would.
func (r *rig) until(d time.Duration) {
	r.t.Helper()
	end := t0.Add(d)
	if end.Before(r.clk.t) {
		r.t.Fatalf("clock cannot go back from %v to %v", r.clk.t.Sub(t0), d)
	}
	for i := 0; ; i++ {
		if i > 10000 {
			r.t.Fatal("Tick never settles")
		}
		n, next := r.s.Tick(r.clk.t)
		if n != nil {
			r.got = append(r.got, delivery{r.clk.t, *n})
			continue
		}
		if next.IsZero() || next.After(end) {
			break
		}
		if !next.After(r.clk.t) {
			r.t.Fatalf("Tick at %v returned nothing yet asks to be called at %v", r.clk.t.Sub(t0), next.Sub(t0))
		}
		r.clk.t = next
	}
	r.clk.t = end
}

// messages lists every event message delivered, batches flattened.
func (r *rig) messages() []string {
	var out []string
	for _, d := range r.got {
		out = append(out, eventsOf(d.n)...)
	}
	return out
}

func eventsOf(n Notification) []string {
	if len(n.Events) == 0 {
		return []string{n.Message}
	}
	var out []string
	for _, e := range n.Events {
		out = append(out, e.Message)
	}
	return out
}

// Entry builders; ms is the browser timestamp as an offset from t0.
func at(ms int) capture.Time { return capture.Time{Time: t0.Add(time.Duration(ms) * time.Millisecond)} }

const page = "http://localhost:3000/shop"

func consoleErr(ms int, msg string) capture.LogEntry {
	return capture.LogEntry{TS: at(ms), Level: "error", Kind: "console", Message: msg, Page: page, TabID: 1}
}

func req(ms int, method, url string, status int) capture.NetworkEntry {
	return capture.NetworkEntry{TS: at(ms), Method: method, URL: url, Status: status, Page: page, TabID: 1}
}

func click(ms int, sel string) capture.Action {
	return capture.Action{TS: at(ms), Type: "click", Selector: sel, Page: page, TabID: 1}
}

func sec(n int) time.Duration { return time.Duration(n) * time.Second }

func ptr[T any](v T) *T { return &v }
