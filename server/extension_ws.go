package server

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/gasoline-dev/gasoline/features/query"
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
func (l *extLink) Send(ctx context.Context, r query.Request) error { return l.write(ctx, r) }

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
	query.Response
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
	s.extSockets.Add(1)
	defer s.extSockets.Add(-1)
	link := &extLink{c: c}
	detach := s.queries.Attach(link)
	defer detach()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
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
		if !s.fromExtension(r) {
			return // the human took back an accepted origin
		}
		s.lastContact.Store(time.Now().UnixNano())
		var m workerMessage
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		if m.Type == "hello" && m.Version != "" {
			s.extVersion.Store(&m.Version)
		}
		switch {
		case m.Type == "result":
			s.queries.Resolve(m.Response)
		case (m.Type == "hello" || m.Type == "pilot") && m.Pilot != nil:
			s.reportPilot(*m.Pilot)
			s.events.publish("pilot", s.PilotStatus())
		default:
			s.pilot.Touch()
		}
	}
}

// handlePendingQueries is the polling fallback for a worker without a socket.
func (s *Server) handlePendingQueries(w http.ResponseWriter, r *http.Request) {
	s.notePilot(r)
	writeJSON(w, http.StatusOK, map[string]any{"queries": nonNil(s.queries.Poll())})
}

// handleQueryResults takes answers posted by a polling worker.
func (s *Server) handleQueryResults(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Results []query.Response `json:"results"`
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
