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
	"github.com/gasoline-dev/gasoline/server/wire"
)

// subBuffer bounds what one slow subscriber may have queued; past it,
// events are dropped for that subscriber (and counted), never buffered.
const subBuffer = 4096

// hub fans server events out to SSE subscribers (the dashboard).
type hub struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

type subscriber struct {
	ch      chan []byte
	dropped atomic.Int64
}

func newHub() *hub { return &hub{subs: make(map[*subscriber]struct{})} }

func (h *hub) subscribe() (*subscriber, func()) {
	sub := &subscriber{ch: make(chan []byte, subBuffer)}
	h.mu.Lock()
	h.subs[sub] = struct{}{}
	h.mu.Unlock()
	return sub, func() {
		h.mu.Lock()
		delete(h.subs, sub)
		h.mu.Unlock()
	}
}

func (h *hub) active() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs) > 0
}

// publish encodes one SSE event once and offers it to every subscriber
// without ever blocking the caller.
func (h *hub) publish(event string, v any) {
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
		select {
		case sub.ch <- frame:
		default:
			sub.dropped.Add(1)
		}
	}
}

func sseFrame(event string, data []byte) []byte {
	return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", event, data)
}

// statusEvery is how often the stream carries the server's status.
const statusEvery = time.Second

// handleEventStream is GET /events/stream: the dashboard's live view. It
// opens with a snapshot (status, overrides, recent entries oldest first,
// `?backlog=N` per buffer, default 200) and then streams entry, overrides
// and status events.
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
	sub, unsubscribe := s.events.subscribe()
	defer unsubscribe()

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	write := func(event string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(sseFrame(event, b))
		return err
	}
	write(wire.EventStatus, s.Health())
	write(wire.EventOverrides, s.Overrides())
	if backlog > 0 {
		for _, ev := range s.recent(backlog) {
			write(wire.EventEntry, ev)
		}
	}
	fl.Flush()

	tick := time.NewTicker(statusEvery)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case frame := <-sub.ch:
			if _, err := w.Write(frame); err != nil {
				return
			}
			// Coalesce a burst into one flush.
			for drained := false; !drained; {
				select {
				case frame := <-sub.ch:
					if _, err := w.Write(frame); err != nil {
						return
					}
				default:
					drained = true
				}
			}
			fl.Flush()
		case <-tick.C:
			h := s.Health()
			if d := sub.dropped.Swap(0); d > 0 {
				write(wire.EventDropped, wire.Dropped{Count: d})
			}
			if write(wire.EventStatus, h) != nil {
				return
			}
			fl.Flush()
		}
	}
}

// recent returns the newest n entries of the streamed buffers, oldest first.
func (s *Server) recent(n int) []capture.Event {
	q := capture.Query{Limit: n}
	var out []capture.Event
	logs, net, ws := s.store.Logs(q), s.store.Network(q), s.store.WSEvents(q)
	for i := len(logs.Entries) - 1; i >= 0; i-- {
		out = append(out, capture.Event{Kind: capture.KindLogs, Entry: logs.Entries[i]})
	}
	for i := len(net.Entries) - 1; i >= 0; i-- {
		out = append(out, capture.Event{Kind: capture.KindNetwork, Entry: net.Entries[i]})
	}
	for i := len(ws.Entries) - 1; i >= 0; i-- {
		out = append(out, capture.Event{Kind: capture.KindWSEvents, Entry: ws.Entries[i]})
	}
	return out
}
