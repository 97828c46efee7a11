// Package browser sends on-demand questions to the browser (live DOM, page
// info, accessibility audits) and correlates the answers: every query has an
// id, a deadline and a tab, and a late answer is dropped.
package browser

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// Kinds of query the extension answers.
const (
	KindDOM      = "dom"
	KindPageInfo = "page_info"
	KindA11y     = "a11y"
	KindPilot    = "pilot"
	KindShot     = "screenshot"
	// KindInteractive lists the page's actionable elements with refs.
	KindInteractive = "interactive"
	// KindStyles reports the CSS declarations that apply to an element.
	KindStyles = "styles"
	// KindStorage reads the page's storage, cookies and IndexedDB.
	KindStorage = "storage"
	// KindFlush asks the worker to deliver the events it holds back while a
	// page is busy; it answers once they are stored.
	KindFlush = "flush"
)

// PollFresh is how recent a fallback poll must be for the extension to count
// as reachable without a push link.
const PollFresh = 3 * time.Second

// Request is one question for the browser.
type Request struct {
	Type     string `json:"type"` // always "query" on the wire
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Tab      int    `json:"tab"`      // 0: the tracked tab
	Deadline int64  `json:"deadline"` // epoch milliseconds
	Params   any    `json:"params,omitempty"`
}

// Response is the browser's answer to one Request.
type Response struct {
	ID     string          `json:"id"`
	Tab    int             `json:"tab,omitempty"`
	URL    string          `json:"url,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *PageError      `json:"error,omitempty"`
}

// PageError is a failure reported by the extension.
type PageError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// problem maps the extension's codes onto the server's stable ones.
func (e *PageError) problem() *problem.Error {
	switch c := problem.Code(e.Code); c {
	case problem.InvalidParam, problem.NotFound, problem.Timeout, problem.PilotDisabled, problem.CSPBlocked, problem.ScriptError,
		problem.TabNotVisible, problem.ScreenshotsOff, problem.StorageReadsOff, problem.TooLarge, problem.NotActionable, problem.Forbidden:
		return &problem.Error{Code: c, Message: e.Message}
	}
	return &problem.Error{Code: problem.Internal, Message: "the extension failed: " + e.Message}
}

// Link pushes requests to a connected extension (its WebSocket).
type Link interface {
	Send(ctx context.Context, r Request) error
	// Notify pushes a message that needs no answer (settings changes).
	Notify(ctx context.Context, msg any) error
}

// Broker hands requests to the extension and waits for their answers.
// Safe for concurrent use.
type Broker struct {
	mu       sync.Mutex
	seq      uint64
	links    []Link // newest last; queries go to the newest
	holding  []Link // links whose extension holds events back (MarkHolding)
	pending  map[string]chan Response
	queue    []Request // for the polling fallback
	lastPoll time.Time
	now      func() time.Time
}

// NewBroker returns a broker with no extension attached.
func NewBroker() *Broker {
	return &Broker{pending: make(map[string]chan Response), now: time.Now}
}

// Attach registers a push link; the returned func detaches it.
func (b *Broker) Attach(l Link) (detach func()) {
	b.mu.Lock()
	b.links = append(b.links, l)
	// A worker stops polling once its socket is open: what was queued for
	// its next poll goes on the socket, or would wait out its deadline.
	queued := b.queue
	b.queue = nil
	b.mu.Unlock()
	if len(queued) > 0 {
		go b.sendQueued(l, queued)
	}
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.links = slices.DeleteFunc(b.links, func(x Link) bool { return x == l })
		b.holding = slices.DeleteFunc(b.holding, func(x Link) bool { return x == l })
	}
}

// sendQueued sends requests queued for a poll on l, oldest first; one that
// l cannot take is queued again while someone still waits for it.
func (b *Broker) sendQueued(l Link, reqs []Request) {
	for _, r := range reqs {
		b.mu.Lock()
		_, waiting := b.pending[r.ID]
		b.mu.Unlock()
		if !waiting {
			continue
		}
		if l.Send(context.Background(), r) != nil {
			b.mu.Lock()
			if _, waiting := b.pending[r.ID]; waiting {
				b.queue = append(b.queue, r)
			}
			b.mu.Unlock()
		}
	}
}

// Reachable reports whether a query can reach the extension now.
func (b *Broker) Reachable() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reachable()
}

func (b *Broker) reachable() bool {
	return len(b.links) > 0 || b.now().Sub(b.lastPoll) < PollFresh
}

// ErrNotConnected tells the AI what the human must do.
var ErrNotConnected = problem.New(problem.ExtensionNotConnected,
	"The Gasoline extension is not connected to this server. Ask the human to open Chrome or Firefox with the Gasoline "+
		"extension enabled (its popup must say Connected), then try again.")

// Ask sends one query and waits for its answer until timeout. It fails at
// once when no extension can be reached.
func (b *Broker) Ask(ctx context.Context, kind string, tab int, params any, timeout time.Duration) (Response, error) {
	b.mu.Lock()
	if !b.reachable() {
		b.mu.Unlock()
		return Response{}, ErrNotConnected
	}
	var link Link
	if n := len(b.links); n > 0 {
		link = b.links[n-1]
	}
	req, ch := b.register(kind, tab, params, timeout)
	if link == nil {
		b.queue = append(b.queue, req)
	}
	b.mu.Unlock()
	return b.await(ctx, link, req, ch, timeout, true)
}

// MarkHolding records that the extension behind l holds captured events
// back (its worker delivers while a page is busy only once it is quiet):
// the next AskHeld asks l for them.
func (b *Broker) MarkHolding(l Link) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if slices.Contains(b.links, l) && !slices.Contains(b.holding, l) {
		b.holding = append(b.holding, l)
	}
}

// Holding reports whether an attached extension said it holds events back.
func (b *Broker) Holding() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.holding) > 0
}

// AskHeld asks every extension that said it holds events back for them
// (a KindFlush query on its own link) and waits until each has answered,
// once they are stored, or until timeout. Each is asked once per mark; a
// failure leaves its events to their own delivery.
func (b *Broker) AskHeld(ctx context.Context, timeout time.Duration) {
	b.mu.Lock()
	links := b.holding
	b.holding = nil
	reqs := make([]Request, len(links))
	chs := make([]chan Response, len(links))
	for i := range links {
		reqs[i], chs[i] = b.register(KindFlush, 0, nil, timeout)
	}
	b.mu.Unlock()
	var wg sync.WaitGroup
	for i, l := range links {
		wg.Go(func() { _, _ = b.await(ctx, l, reqs[i], chs[i], timeout, false) })
	}
	wg.Wait()
}

// register makes a request and the channel its answer will come on; b.mu
// is held.
func (b *Broker) register(kind string, tab int, params any, timeout time.Duration) (Request, chan Response) {
	b.seq++
	deadline := b.now().Add(timeout)
	req := Request{Type: "query", ID: "q" + strconv.FormatUint(b.seq, 10), Kind: kind, Tab: tab,
		Deadline: deadline.UnixMilli(), Params: params}
	ch := make(chan Response, 1)
	b.pending[req.ID] = ch
	return req, ch
}

// await sends req on link (nil: it is queued for a poll) and waits for its
// answer until timeout. With fallback, a request whose link just died is
// queued for a poll.
func (b *Broker) await(ctx context.Context, link Link, req Request, ch chan Response, timeout time.Duration, fallback bool) (Response, error) {
	defer b.forget(req.ID)
	if link != nil {
		if err := link.Send(ctx, req); err != nil {
			if !fallback {
				return Response{}, err
			}
			b.mu.Lock() // the socket just died: let a poll pick it up
			b.queue = append(b.queue, req)
			b.mu.Unlock()
		}
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		if r.Error != nil {
			return r, r.Error.problem()
		}
		return r, nil
	case <-timer.C:
		return Response{}, problem.New(problem.Timeout,
			"The page did not answer within %v (it may be busy or hung). Try again, or check the tab.", timeout)
	case <-ctx.Done():
		return Response{}, ctx.Err()
	}
}

// forget drops every trace of a query, answered or not.
func (b *Broker) forget(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.pending, id)
	b.queue = slices.DeleteFunc(b.queue, func(r Request) bool { return r.ID == id })
}

// Resolve delivers an answer; false means nobody waits for it any more (late
// or unknown) and it was dropped.
func (b *Broker) Resolve(r Response) bool {
	b.mu.Lock()
	ch, ok := b.pending[r.ID]
	delete(b.pending, r.ID)
	b.mu.Unlock()
	if ok {
		ch <- r
	}
	return ok
}

// Poll hands out the queued queries (each once) and marks the extension
// reachable through polling.
func (b *Broker) Poll() []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lastPoll = b.now()
	q := b.queue
	b.queue = nil
	return q
}

// Notify pushes msg to every attached extension, best effort: one that
// misses it catches up on its next settings poll.
func (b *Broker) Notify(ctx context.Context, msg any) {
	b.mu.Lock()
	links := slices.Clone(b.links)
	b.mu.Unlock()
	for _, l := range links {
		_ = l.Notify(ctx, msg)
	}
}

// Held counts queries the broker still holds (waiting or queued).
func (b *Broker) Held() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending) + len(b.queue)
}
