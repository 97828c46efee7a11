package approval

import (
	"fmt"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// RuleTTL is how long a rule lasts: the human's standing yes is short, so
// a forgotten one does not outlive the task it was given for.
const RuleTTL = 30 * time.Minute

// MaxRules bounds the rules held at once; the human makes each with a key,
// so reaching it means old ones should go first.
const MaxRules = 32

// Ways a rule ends.
const (
	EndRevoked       = "revoked"
	EndExpired       = "expired"
	EndSessionEnded  = "session_ended"
	EndServerStopped = "server_stopped"
)

// Rule is the human's yes to every later call of one action on one origin
// from one AI session, until it expires or is revoked. Only the human
// makes one, from a call waiting in the queue (Queue.ApproveWithRule);
// rules live in memory only, so none survives the server.
type Rule struct {
	ID uint64 `json:"id"`
	// Session is the MCP session the rule is for; the dashboard never
	// needs it, so it stays off the wire.
	Session string    `json:"-"`
	Agent   string    `json:"agent"`
	Action  string    `json:"action"`
	Origin  string    `json:"origin"`
	Made    time.Time `json:"made"`
	Expires time.Time `json:"expires"`
}

// String describes the rule for the audit log.
func (r Rule) String() string {
	return fmt.Sprintf("rule %d: %s on %s for %s's session until %s", r.ID, r.Action, r.Origin, r.Agent,
		r.Expires.UTC().Format(time.RFC3339))
}

// Covers reports whether req is a call the rule approves, at time now.
// A navigation that leaves the page's origin is never covered: the
// human is asked each time.
func (r Rule) Covers(req Request, now time.Time) bool {
	if req.Action == "navigate" && OriginOf(req.To) != req.Origin {
		return false
	}
	return req.Session != "" && req.Origin != "" && req.Session == r.Session &&
		req.Action == r.Action && req.Origin == r.Origin && now.Before(r.Expires)
}

// OriginOf is the origin a rule may name for a page at rawURL: scheme and
// host of an http(s) page; "" for anything else (a file, about:blank),
// which no rule covers.
func OriginOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// Rules holds the active rules. Safe for concurrent use; listeners are
// called with no lock held.
type Rules struct {
	now func() time.Time

	mu       sync.Mutex
	next     uint64
	rules    []Rule
	onEnd    []func(Rule, string)
	onChange []func()
}

// NewRules returns no rules on the given clock (nil: the real one).
func NewRules(now func() time.Time) *Rules {
	if now == nil {
		now = time.Now
	}
	return &Rules{now: now}
}

// OnEnd registers fn to learn of each rule that ends, and why.
func (rs *Rules) OnEnd(fn func(Rule, string)) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.onEnd = append(rs.onEnd, fn)
}

// OnChange registers fn to be called after rules are made or end.
func (rs *Rules) OnChange(fn func()) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.onChange = append(rs.onChange, fn)
}

// make adds a rule for req; the caller tells the listeners (changed).
func (rs *Rules) make(req Request) (Rule, []Rule, error) {
	if req.Session == "" {
		return Rule{}, nil, problem.New(problem.InvalidParam, "this call came from no MCP session a rule could be scoped to; approve it alone")
	}
	if req.Origin == "" {
		return Rule{}, nil, problem.New(problem.InvalidParam, "this call's page has no http(s) origin a rule could name; approve it alone")
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	now := rs.now()
	ended := rs.expireLocked(now)
	if len(rs.rules) >= MaxRules {
		return Rule{}, ended, problem.New(problem.RateLimited, "%d approval rules are active; revoke one first", MaxRules)
	}
	rs.next++
	r := Rule{ID: rs.next, Session: req.Session, Agent: req.Agent, Action: req.Action, Origin: req.Origin,
		Made: now, Expires: now.Add(RuleTTL)}
	rs.rules = append(rs.rules, r)
	return r, ended, nil
}

// Match is the active rule that covers req, if any.
func (rs *Rules) Match(req Request) (Rule, bool) {
	rs.mu.Lock()
	now := rs.now()
	ended := rs.expireLocked(now)
	i := slices.IndexFunc(rs.rules, func(r Rule) bool { return r.Covers(req, now) })
	var r Rule
	if i >= 0 {
		r = rs.rules[i]
	}
	rs.mu.Unlock()
	rs.ended(ended, EndExpired)
	return r, i >= 0
}

// List is the active rules, oldest first.
func (rs *Rules) List() []Rule {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	now := rs.now()
	out := make([]Rule, 0, len(rs.rules))
	for _, r := range rs.rules {
		if now.Before(r.Expires) {
			out = append(out, r)
		}
	}
	return out
}

// Sweep ends the rules whose time ran out.
func (rs *Rules) Sweep() {
	rs.mu.Lock()
	ended := rs.expireLocked(rs.now())
	rs.mu.Unlock()
	rs.ended(ended, EndExpired)
}

// Revoke ends rule id; id 0 ends every rule. It returns the rules ended.
func (rs *Rules) Revoke(id uint64) ([]Rule, error) {
	done := rs.remove(func(r Rule) bool { return id == 0 || r.ID == id })
	if id != 0 && len(done) == 0 {
		return nil, problem.New(problem.NotFound, "no approval rule %d is active (revoked, expired or its AI session ended)", id)
	}
	rs.ended(done, EndRevoked)
	return done, nil
}

// EndSession ends the rules of an MCP session that closed; why is
// EndSessionEnded, or EndServerStopped when the server's stopping closed it.
func (rs *Rules) EndSession(session, why string) {
	rs.ended(rs.remove(func(r Rule) bool { return r.Session == session }), why)
}

// Stop ends every rule as the server stops, so the audit leaves none open.
func (rs *Rules) Stop() {
	rs.ended(rs.remove(func(Rule) bool { return true }), EndServerStopped)
}

func (rs *Rules) remove(match func(Rule) bool) []Rule {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var done []Rule
	rs.rules = slices.DeleteFunc(rs.rules, func(r Rule) bool {
		if match(r) {
			done = append(done, r)
			return true
		}
		return false
	})
	return done
}

func (rs *Rules) expireLocked(now time.Time) []Rule {
	var done []Rule
	rs.rules = slices.DeleteFunc(rs.rules, func(r Rule) bool {
		if !now.Before(r.Expires) {
			done = append(done, r)
			return true
		}
		return false
	})
	return done
}

// ended tells the listeners of rules that ended, then of the change.
func (rs *Rules) ended(done []Rule, why string) {
	if len(done) == 0 {
		return
	}
	rs.mu.Lock()
	onEnd := slices.Clone(rs.onEnd)
	rs.mu.Unlock()
	for _, r := range done {
		for _, fn := range onEnd {
			fn(r, why)
		}
	}
	rs.changed()
}

func (rs *Rules) changed() {
	rs.mu.Lock()
	fns := slices.Clone(rs.onChange)
	rs.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// Answered is a waiting call a rule's making answered.
type Answered struct {
	Request  Request
	Decision Decision
}

// ApproveWithRule is the human's a on waiting call id: it approves the
// call, makes a rule from it (same AI session, action and origin), and
// approves every other waiting call the rule covers. The calls answered
// come first the one the human saw, then the others oldest first.
func (q *Queue) ApproveWithRule(id uint64, rs *Rules) (Rule, []Answered, error) {
	q.mu.Lock()
	i := slices.IndexFunc(q.pending, func(e *entry) bool { return e.req.ID == id })
	if i < 0 {
		q.mu.Unlock()
		return Rule{}, nil, problem.New(problem.NotFound, "no pilot action %d waits for approval (answered, timed out or withdrawn)", id)
	}
	rule, expired, err := rs.make(q.pending[i].req)
	if err != nil {
		q.mu.Unlock()
		rs.ended(expired, EndExpired)
		return Rule{}, nil, err
	}
	now := q.now()
	answer := func(e *entry) Answered {
		d := Decision{Outcome: Approved, Latency: now.Sub(e.req.At), Rule: rule.ID}
		e.done <- d
		return Answered{e.req, d}
	}
	out := []Answered{answer(q.pending[i])}
	kept := make([]*entry, 0, len(q.pending))
	for j, e := range q.pending {
		switch {
		case j == i:
		case rule.Covers(e.req, rule.Made):
			out = append(out, answer(e))
		default:
			kept = append(kept, e)
		}
	}
	q.pending = kept
	q.changedLocked()
	q.mu.Unlock()
	rs.ended(expired, EndExpired)
	rs.changed()
	return rule, out, nil
}
