package approval

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/wait"
)

// fakeClock fires its timers only when the test says so.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	timers []timer
}

type timer struct {
	at time.Time
	c  chan time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) after(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.timers = append(c.timers, timer{c.t.Add(d), ch})
	return ch
}

// awaitTimers waits until at least n timers are armed.
func (c *fakeClock) awaitTimers(t *testing.T, n int) {
	t.Helper()
	armed := func() int { c.mu.Lock(); defer c.mu.Unlock(); return len(c.timers) }
	if !wait.Until(10*time.Second, func() bool { return armed() >= n }) {
		t.Fatalf("%d timers armed, want %d", armed(), n)
	}
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if !tm.at.After(c.t) {
			tm.c <- c.t
		} else {
			kept = append(kept, tm)
		}
	}
	c.timers = kept
}

// waitPending waits until n requests are pending; 10 s only turns a hang
// into a failure.
func waitPending(t *testing.T, q *Queue, n int) (p []Request) {
	t.Helper()
	if !wait.Until(10*time.Second, func() bool { p = q.Pending(); return len(p) == n }) {
		t.Fatalf("pending %d, want %d", len(p), n)
	}
	return p
}

func TestApproveDenyAndTimeoutInOrder(t *testing.T) {
	ck := &fakeClock{t: time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)}
	q := New(ck.now, ck.after)
	type result struct {
		d   Decision
		err error
	}
	ask := func(action string) chan result {
		ch := make(chan result, 1)
		go func() {
			d, err := q.Ask(context.Background(), Request{Agent: "claude-code", Action: action}, time.Minute, nil)
			ch <- result{d, err}
		}()
		return ch
	}
	first := ask("highlight")
	waitPending(t, q, 1)
	second := ask("execute_js")
	waitPending(t, q, 2)
	third := ask("list_states")
	p := waitPending(t, q, 3)
	if p[0].Action != "highlight" || p[1].Action != "execute_js" || p[0].ID >= p[1].ID {
		t.Fatalf("not in order: %+v", p)
	}
	ck.advance(2 * time.Second)
	if _, _, err := q.Answer(p[0].ID, true, ""); err != nil {
		t.Fatal(err)
	}
	if r := <-first; r.d.Outcome != Approved || r.d.Latency != 2*time.Second {
		t.Fatalf("first: %+v", r)
	}
	if _, _, err := q.Answer(p[1].ID, false, "not on prod"); err != nil {
		t.Fatal(err)
	}
	if r := <-second; r.d.Outcome != Denied || r.d.Reason != "not on prod" {
		t.Fatalf("second: %+v", r)
	}
	if _, _, err := q.Answer(p[1].ID, true, ""); err == nil {
		t.Fatal("a request answered twice")
	}
	ck.advance(time.Minute)
	if r := <-third; r.d.Outcome != TimedOut {
		t.Fatalf("third: %+v", r)
	}
	if len(q.Pending()) != 0 {
		t.Fatal("the queue is not empty")
	}
}

func TestWithdrawnAndBounded(t *testing.T) {
	ck := &fakeClock{t: time.Now()}
	q := New(ck.now, ck.after)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := q.Ask(ctx, Request{Action: "highlight"}, time.Minute, nil)
		done <- err
	}()
	waitPending(t, q, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	waitPending(t, q, 0)

	for range MaxPending {
		go q.Ask(context.Background(), Request{Action: "highlight"}, time.Minute, nil)
	}
	waitPending(t, q, MaxPending)
	if _, err := q.Ask(context.Background(), Request{Action: "highlight"}, time.Minute, nil); err == nil {
		t.Fatal("the queue grew past its bound")
	}
	ck.awaitTimers(t, MaxPending+1) // the withdrawn one's too; a request is pending before its timeout is armed
	ck.advance(time.Minute)
	waitPending(t, q, 0)
}

// A caller that stops waiting gets its context's error and a Cancelled
// decision, and the request leaves the queue.
func TestCancelledAskIsADecision(t *testing.T) {
	ck := &fakeClock{t: time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)}
	q := New(ck.now, ck.after)
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		d   Decision
		err error
	}
	ch := make(chan result, 1)
	go func() {
		d, err := q.Ask(ctx, Request{Action: "highlight"}, time.Minute, nil)
		ch <- result{d, err}
	}()
	waitPending(t, q, 1)
	cancel()
	r := <-ch
	if !errors.Is(r.err, context.Canceled) || r.d.Outcome != Cancelled {
		t.Fatalf("cancelled ask: %+v", r)
	}
	waitPending(t, q, 0)
}

// A denial and a timeout refuse the action with their stable codes and
// what to do next; an approval and a cancelled wait refuse nothing here.
func TestRefusalOfEachOutcome(t *testing.T) {
	for _, tc := range []struct {
		d    Decision
		code problem.Code
		says string
	}{
		{Decision{Outcome: Denied, Reason: "not on prod"}, problem.DeniedByUser, "dashboard: not on prod. Do not retry it unchanged."},
		{Decision{Outcome: Denied}, problem.DeniedByUser, "dashboard. Do not retry"},
		{Decision{Outcome: TimedOut}, problem.ApprovalTimeout, "within 1m0s"},
		{Decision{Outcome: Approved}, "", ""},
		{Decision{Outcome: Cancelled}, "", ""},
	} {
		err := tc.d.Refusal(time.Minute)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.d.Outcome, err)
			}
			continue
		}
		if p := problem.From(err); p.Code != tc.code || !strings.Contains(p.Message, tc.says) {
			t.Errorf("%s: %v", tc.d.Outcome, err)
		}
	}
}
