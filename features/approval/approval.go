// Package approval holds the Web Pilot's actions that wait for the human:
// in "ask" mode every action is queued here until the human approves or
// denies it, or its time runs out. Requests are answered one by one in the
// order they came; nothing here knows HTTP or MCP. Rules (rules.go) are
// the human's standing yes to one action on one origin for one AI session.
package approval

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// DefaultTimeout is how long an action waits for the human.
const DefaultTimeout = 60 * time.Second

// MaxPending bounds the queue: an AI that floods it is refused at once.
const MaxPending = 16

// Request is one action waiting for the human.
type Request struct {
	ID       uint64 `json:"id"`
	Agent    string `json:"agent"`
	Action   string `json:"action"`
	Selector string `json:"selector,omitempty"`
	Name     string `json:"snapshot_name,omitempty"`
	Script   string `json:"script,omitempty"`
	// Target is an action's element as the page names it (role "name"
	// selector); Text what it would type, secrets masked; To where it would
	// navigate.
	Target string `json:"target,omitempty"`
	Text   string `json:"text,omitempty"`
	To     string `json:"to,omitempty"`
	// Steps are a replay's steps, as the human approves them at once.
	Steps []string `json:"steps,omitempty"`
	Tab   int      `json:"tab,omitempty"`
	URL   string   `json:"url,omitempty"`
	// Origin is the page's origin a rule made from this call would name
	// (OriginOf); Session the MCP session that made the call.
	Origin   string    `json:"origin,omitempty"`
	Session  string    `json:"-"`
	At       time.Time `json:"at"`
	Deadline time.Time `json:"deadline"`
}

// Outcomes of a request.
const (
	Approved = "approved"
	Denied   = "denied"
	TimedOut = "timeout"
	// Cancelled is a request its caller stopped waiting for (the AI
	// cancelled its call or went away) before the human answered.
	Cancelled = "cancelled"
)

// Decision is how a request ended.
type Decision struct {
	Outcome string
	Reason  string
	Latency time.Duration
	// Rule is the approval rule that approved the call, if one did.
	Rule uint64
}

type entry struct {
	req  Request
	done chan Decision // buffered, one send
}

// Queue holds the waiting requests. Safe for concurrent use.
type Queue struct {
	now   func() time.Time
	after func(time.Duration) <-chan time.Time

	mu        sync.Mutex
	next      uint64
	pending   []*entry // oldest first
	listeners []func([]Request)
}

// New returns an empty queue on the given clock (nil: the real one).
func New(now func() time.Time, after func(time.Duration) <-chan time.Time) *Queue {
	if now == nil {
		now = time.Now
	}
	if after == nil {
		after = time.After
	}
	return &Queue{now: now, after: after}
}

// OnChange registers fn to get the pending requests after each change.
func (q *Queue) OnChange(fn func([]Request)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.listeners = append(q.listeners, fn)
}

// Ask queues req and waits for the human's answer, the timeout, or ctx;
// tick, if set, is called about every second while it waits (progress).
// When ctx ends first the error is ctx's, and the decision says Cancelled
// (or the human's answer, if it came at the same moment).
func (q *Queue) Ask(ctx context.Context, req Request, timeout time.Duration, tick func(waited time.Duration)) (Decision, error) {
	q.mu.Lock()
	if len(q.pending) >= MaxPending {
		q.mu.Unlock()
		return Decision{}, problem.New(problem.RateLimited, "%d pilot actions already wait for the human's approval; wait for their answers", MaxPending)
	}
	q.next++
	req.ID, req.At = q.next, q.now()
	req.Deadline = req.At.Add(timeout)
	e := &entry{req: req, done: make(chan Decision, 1)}
	q.pending = append(q.pending, e)
	q.changedLocked()
	q.mu.Unlock()

	expired := q.after(timeout)
	for {
		var beat <-chan time.Time
		if tick != nil {
			beat = q.after(time.Second)
		}
		select {
		case d := <-e.done:
			return d, nil
		case <-expired:
			if q.remove(e.req.ID) {
				return Decision{Outcome: TimedOut, Latency: q.now().Sub(req.At)}, nil
			}
			return <-e.done, nil // answered as it expired
		case <-ctx.Done():
			if q.remove(e.req.ID) {
				return Decision{Outcome: Cancelled, Latency: q.now().Sub(req.At)}, ctx.Err()
			}
			return <-e.done, ctx.Err() // answered as it was cancelled
		case <-beat:
			tick(q.now().Sub(req.At))
		}
	}
}

// Answer approves or denies the pending request id.
func (q *Queue) Answer(id uint64, approve bool, reason string) (Request, Decision, error) {
	q.mu.Lock()
	i := slices.IndexFunc(q.pending, func(e *entry) bool { return e.req.ID == id })
	if i < 0 {
		q.mu.Unlock()
		return Request{}, Decision{}, problem.New(problem.NotFound, "no pilot action %d waits for approval (answered, timed out or withdrawn)", id)
	}
	e := q.pending[i]
	q.pending = slices.Delete(q.pending, i, i+1)
	d := Decision{Outcome: Denied, Reason: reason, Latency: q.now().Sub(e.req.At)}
	if approve {
		d.Outcome = Approved
	}
	e.done <- d
	q.changedLocked()
	q.mu.Unlock()
	return e.req, d, nil
}

// Pending lists the waiting requests, oldest first.
func (q *Queue) Pending() []Request {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pendingLocked()
}

func (q *Queue) pendingLocked() []Request {
	out := make([]Request, len(q.pending))
	for i, e := range q.pending {
		out[i] = e.req
	}
	return out
}

func (q *Queue) remove(id uint64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	i := slices.IndexFunc(q.pending, func(e *entry) bool { return e.req.ID == id })
	if i < 0 {
		return false
	}
	q.pending = slices.Delete(q.pending, i, i+1)
	q.changedLocked()
	return true
}

// changedLocked tells the listeners; they must not call back into q.
func (q *Queue) changedLocked() {
	p := q.pendingLocked()
	for _, fn := range q.listeners {
		fn(p)
	}
}

// Refusal is the AI's error for a decision that did not let its action
// go ahead (denied, or nobody answered within timeout); nil otherwise. The
// words tell the AI what to do next: not retry a denial unchanged, ask the
// human to watch the dashboard after a timeout.
func (d Decision) Refusal(timeout time.Duration) error {
	switch d.Outcome {
	case Denied:
		msg := "The human denied this pilot action in the Gasoline dashboard"
		if d.Reason != "" {
			msg += ": " + d.Reason
		}
		return problem.New(problem.DeniedByUser, "%s. Do not retry it unchanged.", msg)
	case TimedOut:
		return problem.New(problem.ApprovalTimeout, "Nobody approved this pilot action within %v (approval mode is ask). Ask the human to watch the Gasoline dashboard, then retry.", timeout)
	}
	return nil
}
