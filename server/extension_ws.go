package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// extLink is the push channel to one extension service worker.
type extLink struct {
	c  *websocket.Conn
	mu sync.Mutex
}

func (l *extLink) write(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return l.c.Write(ctx, websocket.MessageText, b)
}

// Send pushes one query to the worker.
func (l *extLink) Send(ctx context.Context, r browser.Request) error { return l.write(ctx, r) }

// Notify pushes a message that needs no answer.
func (l *extLink) Notify(ctx context.Context, msg any) error { return l.write(ctx, msg) }

// workerMessage is anything the worker sends on its socket.
type workerMessage struct {
	Type string `json:"type"`
	// Pilot is the popup toggle, on "hello" and on "pilot" (sent the moment
	// the human flips it).
	Pilot *bool `json:"pilot"`
	// Version is the extension's manifest version, on "hello".
	Version string `json:"version"`
	// Page is the tab the worker tracks, on "hello": a server that took
	// the port over knows it before the tab changes again.
	Page *capture.Page `json:"page"`
	// SourcemapOrigins is the human's allow list of origins to read source
	// maps from besides development ones, on "hello" and on
	// "sourcemap_origins" (sent when the human changes it).
	SourcemapOrigins *[]string `json:"sourcemap_origins"`
	// Reason and TS are a "page_left"'s (PageLeft), whose tab is the
	// Response's.
	Reason string       `json:"reason"`
	TS     capture.Time `json:"ts"`
	browser.Response
}

// handleExtensionSocket serves the worker's push channel: queries go down,
// answers come back correlated by id.
func (s *Server) handleExtensionSocket(w http.ResponseWriter, r *http.Request) {
	// guard already matched the Origin exactly (the pinned id, or an origin
	// the human accepted); the library's own check knows only hosts.
	c, err := acceptWS(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	defer c.CloseNow()
	s.ext.sockets.Add(1)
	defer s.ext.sockets.Add(-1)
	link := &extLink{c: c}
	detach := s.queries.Attach(link)
	defer detach()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	// What this server takes on the socket besides answers: capture batches.
	// A worker sends its batches here only once told, so a newer extension
	// still delivers to an older server, by POST.
	if link.write(ctx, serverHello{Type: "hello", Batches: true}) != nil {
		return
	}
	var batchBusy atomic.Bool
	// The message keeps the MV3 worker alive (control frames do not reach
	// it); the ping proves the peer is.
	go keepAlive(ctx, c, s.limits.ping, func(ctx context.Context) error {
		return link.write(ctx, map[string]string{"type": "ping"})
	})
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		if !s.origins.trusted(r) {
			return // the human took back an accepted origin
		}
		s.ext.lastContact.Store(time.Now().UnixNano())
		if bytes.HasPrefix(b, eventsPrefix) {
			s.pilot.Touch()
			s.ingestFrame(ctx, link, b, &batchBusy)
			continue
		}
		var m workerMessage
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		if m.Type == "hello" && m.Version != "" {
			s.ext.version.Store(&m.Version)
		}
		if m.Type == "hello" && m.Page != nil && m.Page.URL != "" {
			s.tracked.set(*m.Page)
		}
		if (m.Type == "hello" || m.Type == "sourcemap_origins") && m.SourcemapOrigins != nil {
			s.maps.setOrigins(*m.SourcemapOrigins)
		}
		switch {
		case m.Type == "result":
			s.queries.Resolve(m.Response)
		case m.Type == "holding":
			s.queries.MarkHolding(link)
		case m.Type == "page_left":
			_, _ = s.tracked.left(PageLeft{TabID: m.Tab, Reason: m.Reason, TS: m.TS})
		case (m.Type == "hello" || m.Type == "pilot") && m.Pilot != nil:
			s.pilot.report(*m.Pilot)
			s.events.publish("pilot", s.PilotStatus())
		default:
			s.pilot.Touch()
		}
	}
}

// eventsPrefix starts a capture batch on the extension's socket: the frame
// "events <id> <route>\n<body>" carries what a POST of body to route would.
// A frame costs the browser's processes a fraction of what a request does
// (extension/PERFORMANCE.md, "Batches on the socket"), and the worker sends
// one batch a flush per kind while its events keep coming.
var eventsPrefix = []byte("events ")

// serverHello is the server's first frame on the worker's socket.
type serverHello struct {
	Type    string `json:"type"`
	Batches bool   `json:"batches"` // events frames are stored and acked
}

// ack answers an events frame: its id, the HTTP status the POST would have
// had, and that POST's answer (what was stored, or the problem).
type ack struct {
	Type   string `json:"type"`
	ID     uint64 `json:"id"`
	Status int    `json:"status"`
	*ingestReply
	*problem.Error
}

// ingestFrame stores the batch of an events frame off the socket's reader
// (pongs must keep arriving while it waits for an ingest slot) and answers
// with an ack. One batch at a time per socket: the worker waits for each
// answer, and a peer that does not is told to (rate_limited), so what a
// socket holds stays bounded. A frame without an id cannot be answered and
// is dropped.
func (s *Server) ingestFrame(ctx context.Context, link *extLink, b []byte, busy *atomic.Bool) {
	head, body, ok := bytes.Cut(b[len(eventsPrefix):], []byte("\n"))
	idText, route, _ := strings.Cut(string(head), " ")
	id, err := strconv.ParseUint(idText, 10, 64)
	if !ok || err != nil {
		return
	}
	answer := func(reply ingestReply, err error) {
		a := ack{Type: "ack", ID: id, Status: http.StatusOK, ingestReply: &reply}
		if err != nil {
			a.Error = problem.From(err)
			a.Status, a.ingestReply = statusOf(a.Error), nil
		}
		_ = link.write(ctx, a)
	}
	store, known := s.in.batches[route]
	switch {
	case !known:
		answer(ingestReply{}, problem.New(problem.NotFound, "no capture route %q", route))
		return
	case !busy.CompareAndSwap(false, true):
		answer(ingestReply{}, problem.New(problem.RateLimited, "one batch at a time on this socket: wait for the ack of the last"))
		return
	}
	go func() {
		var reply ingestReply
		release, err := s.ingestSlot(ctx)
		if err == nil {
			reply, err = store(body, release)
			release()
		}
		busy.Store(false) // before the answer: the worker sends its next batch once it has it
		answer(reply, err)
	}()
}

// handlePendingQueries is the polling fallback for a worker without a socket.
func (s *Server) handlePendingQueries(w http.ResponseWriter, r *http.Request) {
	s.pilot.note(r, s.origins.trusted(r))
	writeJSON(w, http.StatusOK, map[string]any{"queries": nonNil(s.queries.Poll())})
}

// handleQueryResults takes answers posted by a polling worker.
func (s *Server) handleQueryResults(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Results []browser.Response `json:"results"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeProblem(w, err)
		return
	}
	n := 0
	for _, res := range body.Results {
		if s.queries.Resolve(res) {
			n++
		}
	}
	writeJSON(w, http.StatusOK, map[string]int{"accepted": n, "dropped": len(body.Results) - n})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
