package approval

import (
	"context"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/problem"
)

const (
	shop  = "http://localhost:5173"
	other = "http://127.0.0.1:5173"
)

// ruleRig is a queue and its rules on one fake clock, with the rules'
// ends recorded.
type ruleRig struct {
	ck    *fakeClock
	q     *Queue
	rs    *Rules
	ended []string
}

func newRuleRig() *ruleRig {
	ck := &fakeClock{t: time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)}
	r := &ruleRig{ck: ck, q: New(ck.now, ck.after), rs: NewRules(ck.now)}
	r.rs.OnEnd(func(rule Rule, why string) { r.ended = append(r.ended, why) })
	return r
}

// ask queues a call and returns where its decision lands.
func (r *ruleRig) ask(req Request) chan Decision {
	ch := make(chan Decision, 1)
	go func() {
		d, _ := r.q.Ask(context.Background(), req, time.Minute, nil)
		ch <- d
	}()
	return ch
}

// makeRule queues req, answers it with a rule, and returns the rule.
func (r *ruleRig) makeRule(t *testing.T, req Request) Rule {
	t.Helper()
	n := len(r.q.Pending())
	got := r.ask(req)
	p := waitPending(t, r.q, n+1)
	rule, answered, err := r.q.ApproveWithRule(p[len(p)-1].ID, r.rs)
	if err != nil {
		t.Fatal(err)
	}
	if d := <-got; d.Outcome != Approved || d.Rule != rule.ID || answered[0].Decision.Rule != rule.ID {
		t.Fatalf("the call a rule is made from: %+v", d)
	}
	return rule
}

func js(session, origin string) Request {
	return Request{Agent: "claude-code", Session: session, Action: "execute_js", Origin: origin}
}

func TestRuleExpiresAfterThirtyMinutes(t *testing.T) {
	r := newRuleRig()
	rule := r.makeRule(t, js("s1", shop))
	if rule.Expires.Sub(rule.Made) != 30*time.Minute {
		t.Fatalf("a rule lasts %v", rule.Expires.Sub(rule.Made))
	}
	if !rule.Covers(js("s1", shop), rule.Expires.Add(-time.Nanosecond)) || rule.Covers(js("s1", shop), rule.Expires) {
		t.Fatal("a rule covers calls until, and not at, its expiry")
	}
	r.ck.advance(30*time.Minute - time.Second)
	if _, ok := r.rs.Match(js("s1", shop)); !ok {
		t.Fatal("no match 29m59s after the rule was made")
	}
	r.ck.advance(time.Second)
	if _, ok := r.rs.Match(js("s1", shop)); ok {
		t.Fatal("a rule still approves 30 min after it was made")
	}
	if len(r.rs.List()) != 0 || len(r.ended) != 1 || r.ended[0] != EndExpired {
		t.Fatalf("after expiry: %v, ended %v", r.rs.List(), r.ended)
	}
}

func TestSweepEndsExpiredRules(t *testing.T) {
	r := newRuleRig()
	r.makeRule(t, js("s1", shop))
	r.ck.advance(RuleTTL)
	if len(r.rs.List()) != 0 {
		t.Fatal("an expired rule is listed")
	}
	r.rs.Sweep()
	if len(r.ended) != 1 || r.ended[0] != EndExpired {
		t.Fatalf("ended %v", r.ended)
	}
}

func TestRuleIsScopedToItsSession(t *testing.T) {
	r := newRuleRig()
	r.makeRule(t, js("s1", shop))
	r.makeRule(t, js("s2", other))
	if _, ok := r.rs.Match(js("s2", shop)); ok {
		t.Fatal("s1's rule approves s2's call")
	}
	if _, ok := r.rs.Match(js("", shop)); ok {
		t.Fatal("s1's rule approves a call from no session")
	}
	r.rs.EndSession("s1", EndSessionEnded)
	if _, ok := r.rs.Match(js("s1", shop)); ok {
		t.Fatal("a rule outlives its session")
	}
	if _, ok := r.rs.Match(js("s2", other)); !ok {
		t.Fatal("s1 ending ended s2's rule")
	}
	if len(r.ended) != 1 || r.ended[0] != EndSessionEnded {
		t.Fatalf("ended %v", r.ended)
	}
}

func TestRuleIsScopedToItsOriginAndAction(t *testing.T) {
	r := newRuleRig()
	r.makeRule(t, js("s1", shop))
	if _, ok := r.rs.Match(js("s1", other)); ok {
		t.Fatal("a rule on localhost approves 127.0.0.1")
	}
	hl := js("s1", shop)
	hl.Action = "highlight"
	if _, ok := r.rs.Match(hl); ok {
		t.Fatal("an execute_js rule approves highlight")
	}
	if got, ok := r.rs.Match(js("s1", shop)); !ok || got.Origin != shop {
		t.Fatalf("the rule's own call: %+v %v", got, ok)
	}
	for in, want := range map[string]string{
		"http://localhost:5173/cart?x=1": shop, "https://a.test/": "https://a.test",
		"file:///tmp/a.html": "", "about:blank": "", "chrome://settings": "", "::": "",
	} {
		if got := OriginOf(in); got != want {
			t.Errorf("OriginOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRevokeEndsARule(t *testing.T) {
	r := newRuleRig()
	a := r.makeRule(t, js("s1", shop))
	b := r.makeRule(t, js("s1", other))
	done, err := r.rs.Revoke(a.ID)
	if err != nil || len(done) != 1 || done[0].ID != a.ID {
		t.Fatalf("revoke: %v %v", done, err)
	}
	if _, ok := r.rs.Match(js("s1", shop)); ok {
		t.Fatal("a revoked rule approves")
	}
	if _, err := r.rs.Revoke(a.ID); problem.From(err).Code != problem.NotFound {
		t.Fatalf("revoked twice: %v", err)
	}
	if done, _ := r.rs.Revoke(0); len(done) != 1 || done[0].ID != b.ID {
		t.Fatalf("revoke all: %v", done)
	}
	if len(r.ended) != 2 || r.ended[0] != EndRevoked || r.ended[1] != EndRevoked {
		t.Fatalf("ended %v", r.ended)
	}
}

// Only a call waiting for the human becomes a rule, and only one from an
// MCP session on an http(s) page: nothing else makes one.
func TestNoRuleWithoutAWaitingCall(t *testing.T) {
	r := newRuleRig()
	if _, _, err := r.q.ApproveWithRule(1, r.rs); problem.From(err).Code != problem.NotFound {
		t.Fatalf("a rule from no waiting call: %v", err)
	}
	for _, req := range []Request{js("", shop), js("s1", "")} {
		got := r.ask(req)
		p := waitPending(t, r.q, 1)
		if _, _, err := r.q.ApproveWithRule(p[0].ID, r.rs); err == nil {
			t.Fatalf("a rule from %+v", req)
		}
		if len(r.q.Pending()) != 1 {
			t.Fatal("a refused rule answered the call")
		}
		if _, _, err := r.q.Answer(p[0].ID, false, ""); err != nil {
			t.Fatal(err)
		}
		<-got
	}
	if len(r.rs.List()) != 0 {
		t.Fatalf("rules: %v", r.rs.List())
	}
}

// Making a rule answers the calls already waiting that it covers, and
// leaves the rest to the human.
func TestRuleApprovesTheCallsAlreadyWaiting(t *testing.T) {
	r := newRuleRig()
	first := r.ask(js("s1", shop))
	waitPending(t, r.q, 1)
	same := r.ask(js("s1", shop))
	waitPending(t, r.q, 2)
	elsewhere := r.ask(js("s1", other))
	p := waitPending(t, r.q, 3)
	rule, answered, err := r.q.ApproveWithRule(p[0].ID, r.rs)
	if err != nil || len(answered) != 2 || answered[0].Request.ID != p[0].ID {
		t.Fatalf("answered %+v, %v", answered, err)
	}
	for _, ch := range []chan Decision{first, same} {
		if d := <-ch; d.Outcome != Approved || d.Rule != rule.ID {
			t.Fatalf("covered call: %+v", d)
		}
	}
	if left := r.q.Pending(); len(left) != 1 || left[0].Origin != other {
		t.Fatalf("left waiting: %+v", left)
	}
	if _, _, err := r.q.Answer(p[2].ID, false, ""); err != nil {
		t.Fatal(err)
	}
	if d := <-elsewhere; d.Outcome != Denied {
		t.Fatalf("other origin: %+v", d)
	}
}

func TestRulesAreBounded(t *testing.T) {
	r := newRuleRig()
	for i := range MaxRules {
		r.makeRule(t, js("s1", "http://h"+string(rune('a'+i%26))+string(rune('a'+i/26))))
	}
	got := r.ask(js("s1", shop))
	p := waitPending(t, r.q, 1)
	if _, _, err := r.q.ApproveWithRule(p[0].ID, r.rs); problem.From(err).Code != problem.RateLimited {
		t.Fatalf("rule past the bound: %v", err)
	}
	_, _, _ = r.q.Answer(p[0].ID, true, "")
	<-got
}

// A server that stops ends every rule, each said to have ended with it.
func TestStopEndsEveryRule(t *testing.T) {
	r := newRuleRig()
	r.makeRule(t, js("s1", shop))
	r.makeRule(t, js("s2", other))
	r.rs.Stop()
	if len(r.rs.List()) != 0 {
		t.Fatalf("rules after stop: %v", r.rs.List())
	}
	if len(r.ended) != 2 || r.ended[0] != EndServerStopped || r.ended[1] != EndServerStopped {
		t.Fatalf("ended %v", r.ended)
	}
}

// A rule for navigate covers navigations within the page's origin only:
// one that leaves it always asks.
func TestNavigationThatLeavesTheOriginAlwaysAsks(t *testing.T) {
	r := newRuleRig()
	nav := func(to string) Request {
		req := js("s1", shop)
		req.Action, req.To = "navigate", to
		return req
	}
	r.makeRule(t, nav(shop+"/a"))
	if _, ok := r.rs.Match(nav(shop + "/b?x=1")); !ok {
		t.Fatal("a same-origin navigation is not covered by the rule")
	}
	for _, to := range []string{other + "/", "https://evil.test/", ""} {
		if _, ok := r.rs.Match(nav(to)); ok {
			t.Fatalf("a navigation to %q is covered by a rule", to)
		}
	}
}
