package browser

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/wait"
)

// fakeLink answers through the broker the way the extension's socket does.
type fakeLink struct {
	b      *Broker
	answer func(Request) *Response // nil: never answers
	fail   bool
	mu     sync.Mutex
	sent   []Request
}

func (l *fakeLink) Send(_ context.Context, r Request) error {
	l.mu.Lock()
	l.sent = append(l.sent, r)
	l.mu.Unlock()
	if l.fail {
		return errors.New("socket closed")
	}
	if l.answer != nil {
		if resp := l.answer(r); resp != nil {
			go l.b.Resolve(*resp)
		}
	}
	return nil
}

func (l *fakeLink) Notify(context.Context, any) error { return nil }

func code(err error) problem.Code { return problem.From(err).Code }

// With no extension a query fails at once: one that waited would end in
// the context's deadline, long before its own hour.
func TestNoExtensionFailsAtOnce(t *testing.T) {
	b := NewBroker()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := b.Ask(ctx, KindDOM, 0, nil, time.Hour)
	if code(err) != problem.ExtensionNotConnected {
		t.Fatalf("err=%v", err)
	}
	if b.Held() != 0 {
		t.Fatal("held a query with no extension")
	}
}

func TestAnswerIsCorrelated(t *testing.T) {
	b := NewBroker()
	l := &fakeLink{b: b, answer: func(r Request) *Response {
		return &Response{ID: r.ID, Tab: 9, Result: json.RawMessage(`{"kind":"` + r.Kind + `"}`)}
	}}
	defer b.Attach(l)()
	var wg sync.WaitGroup
	for _, k := range []string{KindDOM, KindPageInfo, KindA11y} {
		wg.Go(func() {
			r, err := b.Ask(context.Background(), k, 0, map[string]any{"selector": "a"}, time.Second)
			if err != nil || string(r.Result) != `{"kind":"`+k+`"}` || r.Tab != 9 {
				t.Errorf("%s: %v %+v", k, err, r)
			}
		})
	}
	wg.Wait()
	if b.Held() != 0 {
		t.Fatalf("held %d after answers", b.Held())
	}
	if l.sent[0].Deadline <= time.Now().UnixMilli() || l.sent[0].Type != "query" {
		t.Fatalf("request: %+v", l.sent[0])
	}
}

func TestPageErrorsComeBackAsProblems(t *testing.T) {
	b := NewBroker()
	defer b.Attach(&fakeLink{b: b, answer: func(r Request) *Response {
		return &Response{ID: r.ID, Error: &PageError{Code: "invalid_param", Message: "'##' is not a valid selector"}}
	}})()
	_, err := b.Ask(context.Background(), KindDOM, 0, nil, time.Second)
	if code(err) != problem.InvalidParam {
		t.Fatalf("%v", err)
	}
}

func TestTimeoutLeavesNothingAndLateAnswersAreDropped(t *testing.T) {
	b := NewBroker()
	l := &fakeLink{b: b}
	defer b.Attach(l)()
	_, err := b.Ask(context.Background(), KindDOM, 0, nil, 30*time.Millisecond)
	if code(err) != problem.Timeout {
		t.Fatalf("%v", err)
	}
	if b.Held() != 0 {
		t.Fatalf("held %d after timeout", b.Held())
	}
	if b.Resolve(Response{ID: l.sent[0].ID}) {
		t.Fatal("late answer accepted")
	}
}

// asked is what an Ask returned.
type asked struct {
	r   Response
	err error
}

// askPolled asks, in the background, a broker whose worker has no socket
// and polls; the answer comes on the channel.
func askPolled(kind string, tab int) (*Broker, chan asked) {
	b := NewBroker()
	b.Poll()
	done := make(chan asked, 1)
	go func() {
		r, err := b.Ask(context.Background(), kind, tab, nil, 20*time.Second)
		done <- asked{r, err}
	}()
	return b, done
}

func TestPollingFallback(t *testing.T) {
	b, done := askPolled(KindPageInfo, 4)
	got := pollUntilQueued(t, b)
	if got[0].Tab != 4 || got[0].Kind != KindPageInfo {
		t.Fatalf("%+v", got)
	}
	if again := b.Poll(); len(again) != 0 {
		t.Fatalf("handed out twice: %+v", again)
	}
	b.Resolve(Response{ID: got[0].ID, URL: "http://x/"})
	if a := <-done; a.err != nil || a.r.URL != "http://x/" {
		t.Fatalf("%+v", a)
	}
}

// A query queued for a poll goes on the socket that opens next: the
// worker polls no more once its socket is open, so the query would wait
// out its deadline (the Firefox flake of TestFirefoxQueries: the socket
// reopened after the human accepted the origin, between the query and
// the next poll).
func TestQueuedQueryGoesOnTheSocketThatOpens(t *testing.T) {
	b, done := askPolled(KindDOM, 0)
	waitQueued(t, b)
	link := &fakeLink{b: b, answer: func(r Request) *Response { return &Response{ID: r.ID, URL: "http://x/"} }}
	defer b.Attach(link)()
	if a := <-done; a.err != nil {
		t.Fatal(a.err)
	}
	link.mu.Lock()
	defer link.mu.Unlock()
	if len(link.sent) != 1 || link.sent[0].Kind != KindDOM {
		t.Fatalf("sent on the socket: %+v", link.sent)
	}
	if again := b.Poll(); len(again) != 0 {
		t.Fatalf("still queued for a poll: %+v", again)
	}
}

// A queued query the new socket cannot take stays queued for a poll.
func TestQueuedQueryTheSocketRefusesStaysQueued(t *testing.T) {
	b, _ := askPolled(KindDOM, 0)
	waitQueued(t, b)
	defer b.Attach(&fakeLink{b: b, fail: true})()
	got := pollUntilQueued(t, b)
	if len(got) != 1 || got[0].Kind != KindDOM {
		t.Fatalf("%+v", got)
	}
}

// waitQueued waits, without taking it, until a query is queued for a poll;
// 20 s only turns a hang into a failure.
func waitQueued(t *testing.T, b *Broker) {
	t.Helper()
	if !wait.Until(20*time.Second, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.queue) > 0 }) {
		t.Fatal("no query was queued within 20 s")
	}
}

// pollUntilQueued polls as the worker does until a query is queued.
func pollUntilQueued(t *testing.T, b *Broker) (got []Request) {
	t.Helper()
	if !wait.Until(20*time.Second, func() bool { got = b.Poll(); return len(got) > 0 }) {
		t.Fatal("no query was queued for a poll within 20 s")
	}
	return got
}

// A query whose socket dies as it is sent is queued for the next poll, and
// the poll's answer reaches the caller.
func TestDeadSocketFallsBackToPolling(t *testing.T) {
	b := NewBroker()
	link := &fakeLink{b: b, fail: true}
	detach := b.Attach(link)
	done := make(chan error, 1)
	go func() {
		r, err := b.Ask(context.Background(), KindDOM, 0, nil, 30*time.Second)
		if err == nil && r.URL != "http://x/" {
			err = errors.New("answer " + r.URL + ", want the poll's")
		}
		done <- err
	}()
	got := pollUntilQueued(t, b)
	detach()
	link.mu.Lock()
	sent := len(link.sent)
	link.mu.Unlock()
	if len(got) != 1 || got[0].Kind != KindDOM || sent != 1 || got[0].ID != link.sent[0].ID {
		t.Fatalf("polled %+v after %d sends on the socket", got, sent)
	}
	if !b.Resolve(Response{ID: got[0].ID, URL: "http://x/"}) {
		t.Fatal("the polled query's answer was dropped")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if b.Held() != 0 {
		t.Fatalf("%d queries left after the answer", b.Held())
	}
}

func TestDetachedLinkIsNotUsed(t *testing.T) {
	b := NewBroker()
	b.Attach(&fakeLink{b: b})()
	if b.Reachable() {
		t.Fatal("reachable with no link and no poll")
	}
}

func TestCancelledCallerLeavesNothing(t *testing.T) {
	b := NewBroker()
	defer b.Attach(&fakeLink{b: b})()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Ask(ctx, KindDOM, 0, nil, time.Second); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if b.Held() != 0 {
		t.Fatal("held a cancelled query")
	}
}

func TestDOMLimits(t *testing.T) {
	r := DOMResult{MatchCount: 80}
	long := string(make([]byte, 900))
	for range 60 {
		r.Matches = append(r.Matches, Element{Tag: "li", Text: long, Children: []Element{{Tag: "a", Children: []Element{{Tag: "b"}}}}})
	}
	r.Enforce(1)
	if r.ReturnedCount != MaxMatches || r.MatchCount != 80 || len(r.Matches[0].Text) != MaxElementText || !r.Matches[0].TextTruncated {
		t.Fatalf("%d %d %d", r.ReturnedCount, r.MatchCount, len(r.Matches[0].Text))
	}
	if len(r.Matches[0].Children) != 1 || r.Matches[0].Children[0].Children != nil {
		t.Fatalf("depth not enforced: %+v", r.Matches[0].Children)
	}
	p := DOMParams{Selector: "li", IncludeChildren: true, MaxDepth: 9}
	if code(p.Check()) != problem.InvalidParam {
		t.Fatal("max_depth 9 accepted")
	}
	if p := (DOMParams{Selector: " "}); code(p.Check()) != problem.InvalidParam {
		t.Fatal("blank selector accepted")
	}
}

func TestUnknownPageErrorCodesBecomeInternal(t *testing.T) {
	b := NewBroker()
	defer b.Attach(&fakeLink{b: b, answer: func(r Request) *Response {
		return &Response{ID: r.ID, Error: &PageError{Code: "weird", Message: "boom"}}
	}})()
	_, err := b.Ask(context.Background(), KindDOM, 0, nil, time.Second)
	if p := problem.From(err); p.Code != problem.Internal || !strings.Contains(p.Message, "boom") {
		t.Fatalf("%v", err)
	}
}

// Only the links that said they hold events back are asked for them, each on
// its own link, once per mark; a detached link's mark goes with it, and one
// that never answers costs the read the timeout, not more.
func TestAskHeldAsksTheHoldingLinksOnly(t *testing.T) {
	b := NewBroker()
	flushed := func(r Request) *Response {
		if r.Kind != KindFlush {
			t.Errorf("asked %q", r.Kind)
		}
		return &Response{ID: r.ID, Result: json.RawMessage(`{"queued":0}`)}
	}
	holding := &fakeLink{b: b, answer: flushed}
	quiet := &fakeLink{b: b, answer: flushed}
	gone := &fakeLink{b: b, answer: flushed}
	defer b.Attach(holding)()
	defer b.Attach(quiet)()
	detachGone := b.Attach(gone)
	b.MarkHolding(gone)
	detachGone()
	b.MarkHolding(&fakeLink{b: b}) // never attached: ignored
	if b.Holding() {
		t.Fatal("holding with no attached link marked")
	}
	b.MarkHolding(holding)
	b.MarkHolding(holding)
	b.AskHeld(context.Background(), time.Second)
	if len(holding.sent) != 1 || len(quiet.sent) != 0 || len(gone.sent) != 0 || b.Holding() {
		t.Fatalf("asked holding %d, quiet %d, gone %d; still holding %v", len(holding.sent), len(quiet.sent), len(gone.sent), b.Holding())
	}
	b.AskHeld(context.Background(), time.Second)
	if len(holding.sent) != 1 {
		t.Fatal("asked again without a new mark")
	}

	mute := &fakeLink{b: b}
	defer b.Attach(mute)()
	b.MarkHolding(mute)
	t0 := time.Now()
	b.AskHeld(context.Background(), 50*time.Millisecond)
	if len(mute.sent) != 1 || time.Since(t0) > 10*time.Second || b.Held() != 0 {
		t.Fatalf("mute link: sent %d, took %v, %d queries left", len(mute.sent), time.Since(t0), b.Held())
	}
}
