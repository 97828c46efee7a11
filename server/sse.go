package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// subBytes bounds, in bytes, what one slow subscriber may have queued;
// past it, events are dropped for that subscriber (and counted), never
// buffered. Counting frames would let a stalled reader hold thousands of
// maximum-size entries.
const subBytes = 1 << 20

// maxSubscribers bounds the open event streams of readers without the
// human token, and humanSubscribers those of readers with it (the
// dashboard), so that subBytes bounds them all and no local process can
// take every stream from the human.
const (
	maxSubscribers   = 16
	humanSubscribers = 4
)

// hub fans server events out to SSE subscribers (the dashboard).
type hub struct {
	mu      sync.Mutex
	subs    map[*subscriber]struct{}
	humans  int          // of subs, the token holders'
	dropped atomic.Int64 // events dropped for slow subscribers, ever
}

// subscriber is one stream's queue of encoded frames.
type subscriber struct {
	mu      sync.Mutex
	frames  [][]byte
	bytes   int // queued or being written
	wake    chan struct{}
	dropped atomic.Int64 // not yet reported to this subscriber
	total   *atomic.Int64
	human   bool // a token holder's: it gets publishHuman's events too
}

func newHub() *hub { return &hub{subs: make(map[*subscriber]struct{})} }

// subscribe adds a subscriber, a token holder's when human; false when
// the streams of its kind are all open.
func (h *hub) subscribe(human bool) (*subscriber, func(), bool) {
	sub := &subscriber{wake: make(chan struct{}, 1), total: &h.dropped, human: human}
	h.mu.Lock()
	defer h.mu.Unlock()
	if human && h.humans >= humanSubscribers || !human && len(h.subs)-h.humans >= maxSubscribers {
		return nil, nil, false
	}
	h.subs[sub] = struct{}{}
	if human {
		h.humans++
	}
	return sub, func() {
		h.mu.Lock()
		delete(h.subs, sub)
		if human {
			h.humans--
		}
		h.mu.Unlock()
	}, true
}

func (h *hub) active() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs) > 0
}

// publish encodes one SSE event once and offers it to every subscriber
// without ever blocking the caller.
func (h *hub) publish(event string, v any) { h.publishTo(event, v, false) }

// publishHuman is publish for the streams of token holders only.
func (h *hub) publishHuman(event string, v any) { h.publishTo(event, v, true) }

func (h *hub) publishTo(event string, v any, humanOnly bool) {
	if !h.active() {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	frame := sseFrame(event, b)
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		if sub.human || !humanOnly {
			sub.offer(frame)
		}
	}
}

// offer queues frame unless that would pass subBytes.
func (s *subscriber) offer(frame []byte) {
	s.mu.Lock()
	if s.bytes+len(frame) > subBytes {
		s.mu.Unlock()
		s.dropped.Add(1)
		s.total.Add(1)
		return
	}
	s.frames = append(s.frames, frame)
	s.bytes += len(frame)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take hands over the queued frames; their bytes count against subBytes
// until release, so a slow write cannot double what is held.
func (s *subscriber) take() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.frames
	s.frames = nil
	return f
}

func (s *subscriber) release(n int) {
	s.mu.Lock()
	s.bytes -= n
	s.mu.Unlock()
}

func sseFrame(event string, data []byte) []byte {
	return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", event, data)
}

// handleEventStream is GET /events/stream: the dashboard's live view. It
// opens with a snapshot (status, overrides, what the human last pointed
// at, recent entries oldest first, `?backlog=N` per buffer, default 200)
// and then streams entry, overrides and status events.
func (s *Server) handleEventStream(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	backlog := 200
	if v := r.URL.Query().Get("backlog"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > capture.MaxLimit {
			http.Error(w, "backlog must be 0.."+strconv.Itoa(capture.MaxLimit), http.StatusBadRequest)
			return
		}
		backlog = n
	}
	human := s.token.holds(r)
	sub, unsubscribe, ok := s.events.subscribe(human)
	if !ok {
		n := maxSubscribers
		if human {
			n = humanSubscribers
		}
		writeProblem(w, problem.New(problem.RateLimited, "%d event streams are open already; close one", n))
		return
	}
	defer unsubscribe()
	// The stream outlives the server's request timeouts: each write gets
	// its own deadline instead, so a reader that stops reading is dropped.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	send := func(frame []byte) error {
		_ = rc.SetWriteDeadline(time.Now().Add(s.limits.stream))
		_, err := w.Write(frame)
		return err
	}
	write := func(event string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return send(sseFrame(event, b))
	}
	write(wire.EventStatus, s.Health())
	write(wire.EventOverrides, s.Overrides())
	if human {
		s.reads.replay(write)
	}
	s.perf.replay(write)
	if _, ok := s.pointed.Newest(); ok { // the header's "sent to AI", as a new dashboard finds it
		write(wire.EventPointed, s.pointed.state())
	}
	if backlog > 0 {
		fl.Flush() // the backlog's stacks may wait for their maps (at most the resolver's 2 s)
		for _, ev := range s.maps.humanRecent(r.Context(), s.recent(backlog)) {
			write(wire.EventEntry, ev)
		}
	}
	fl.Flush()

	tick := time.NewTicker(s.limits.status)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-sub.wake:
			// One flush for the whole burst.
			for _, frame := range sub.take() {
				err := send(frame)
				sub.release(len(frame))
				if err != nil {
					return
				}
			}
			if rc.Flush() != nil {
				return
			}
		case <-tick.C:
			h := s.Health()
			if d := sub.dropped.Swap(0); d > 0 {
				write(wire.EventDropped, wire.Dropped{Count: d})
			}
			// The status doubles as the keep-alive: a dead peer fails it.
			if write(wire.EventStatus, h) != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

// recent returns the newest n entries of the streamed buffers, oldest first.
func (s *Server) recent(n int) []capture.Event {
	q := capture.Query{Limit: n}
	var out []capture.Event
	out = appendRecent(out, capture.KindLogs, s.store.Logs(q).Entries)
	out = appendRecent(out, capture.KindNetwork, s.store.Network(q).Entries)
	out = appendRecent(out, capture.KindWSEvents, s.store.WSEvents(q).Entries)
	// The dashboard's Actions pane, and the bodies a request's detail shows.
	out = appendRecent(out, capture.KindActions, s.store.Actions(q).Entries)
	return appendRecent(out, capture.KindBodies, s.store.Bodies(q).Entries)
}

// appendRecent appends entries, newest first as queries return them, to
// out oldest first.
func appendRecent[T any](out []capture.Event, kind string, entries []T) []capture.Event {
	for i := len(entries) - 1; i >= 0; i-- {
		out = append(out, capture.Event{Kind: kind, Entry: entries[i]})
	}
	return out
}
