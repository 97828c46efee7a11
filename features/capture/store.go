// Package capture holds what the extension captured from the developer's
// tabs in bounded ring buffers, and answers filtered, cursor-based reads.
package capture

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Capacities of the ring buffers. The whole store stays under ~15 MB even
// when every entry is at its size cap.
const (
	LogCap        = 1000
	ErrorCap      = 200
	NetworkCap    = 500
	BodyCap       = 100
	WSEventCap    = 200
	WSConnCap     = 20
	ActionCap     = 200
	MaxBatch      = 1000
	DefaultLimit  = 50
	DefaultBodies = 20
	MaxLimit      = 500
)

// Store is the capture state of one Gasoline server. Safe for concurrent use.
type Store struct {
	mu      sync.RWMutex
	seq     uint64
	logs    *ring[LogEntry]
	errors  *ring[LogEntry]
	network *ring[NetworkEntry]
	bodies  *ring[NetworkBody]
	ws      *ring[WSEvent]
	actions *ring[Action]
	conns   map[string]*WSConnection
	page    Page
	now     func() time.Time
}

// NewStore returns an empty store. Cursors start from the current time in
// microseconds, so a cursor handed out by an earlier server process is always
// older than anything this one holds and never hides new entries.
func NewStore() *Store {
	return &Store{
		seq:     uint64(time.Now().UnixMicro()),
		logs:    newRing[LogEntry](LogCap),
		errors:  newRing[LogEntry](ErrorCap),
		network: newRing[NetworkEntry](NetworkCap),
		bodies:  newRing[NetworkBody](BodyCap),
		ws:      newRing[WSEvent](WSEventCap),
		actions: newRing[Action](ActionCap),
		conns:   make(map[string]*WSConnection),
		now:     time.Now,
	}
}

// Rejection says why one entry of a batch was not stored.
type Rejection struct {
	Index int    `json:"index"`
	Error string `json:"error"`
}

func (s *Store) stamp(t *Time) {
	if t.IsZero() {
		t.Time = s.now()
	}
}

// oneOf validates an enumerated field; it returns "" when v is allowed.
func oneOf(field, v string, allowed ...string) string {
	if slices.Contains(allowed, v) {
		return ""
	}
	return fmt.Sprintf("%s: %q is not one of %s", field, v, strings.Join(allowed, ", "))
}

// AddLogs stores console entries; errors also go to the error buffer so a
// flood of console.log cannot evict them.
func (s *Store) AddLogs(entries []LogEntry) (int, []Rejection) {
	var rej []Rejection
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := range entries {
		e := entries[i]
		e.sanitize()
		if msg := oneOf("level", e.Level, "debug", "log", "info", "warn", "error"); msg != "" {
			rej = append(rej, Rejection{i, msg})
			continue
		}
		if msg := oneOf("kind", e.Kind, "", "exception", "rejection"); msg != "" {
			rej = append(rej, Rejection{i, msg})
			continue
		}
		s.stamp(&e.TS)
		s.seq++
		s.logs.push(s.seq, e)
		if e.Level == "error" {
			s.errors.push(s.seq, e)
		}
		n++
	}
	return n, rej
}

// AddNetwork stores waterfall entries.
func (s *Store) AddNetwork(entries []NetworkEntry) (int, []Rejection) {
	var rej []Rejection
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := range entries {
		e := entries[i]
		e.sanitize()
		if e.URL == "" || e.Method == "" {
			rej = append(rej, Rejection{i, "method and url are required"})
			continue
		}
		s.stamp(&e.TS)
		s.seq++
		s.network.push(s.seq, e)
		n++
	}
	return n, rej
}

// AddBodies stores request/response payloads, truncated and with secret
// headers removed.
func (s *Store) AddBodies(bodies []NetworkBody) (int, []Rejection) {
	var rej []Rejection
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := range bodies {
		b := bodies[i]
		b.sanitize()
		if b.URL == "" || b.Method == "" {
			rej = append(rej, Rejection{i, "method and url are required"})
			continue
		}
		s.stamp(&b.TS)
		s.seq++
		s.bodies.push(s.seq, b)
		n++
	}
	return n, rej
}

// AddActions stores user actions; values of password-like fields are dropped.
func (s *Store) AddActions(actions []Action) (int, []Rejection) {
	var rej []Rejection
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := range actions {
		a := actions[i]
		a.sanitize()
		if msg := oneOf("type", a.Type, "click", "input", "submit", "navigation", "keypress"); msg != "" {
			rej = append(rej, Rejection{i, msg})
			continue
		}
		s.stamp(&a.TS)
		s.seq++
		s.actions.push(s.seq, a)
		n++
	}
	return n, rej
}

// SetPage records the tab the extension tracks.
func (s *Store) SetPage(p Page) {
	p.URL = truncate(p.URL, MaxURL)
	p.Title = truncate(p.Title, MaxText)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stamp(&p.TS)
	s.page = p
}

// Page returns the tracked tab; ok is false before the extension reported one.
func (s *Store) Page() (p Page, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.page, s.page.URL != ""
}

// Kinds of buffer, as named by Clear and Stats.
const (
	KindLogs     = "logs"
	KindErrors   = "errors"
	KindNetwork  = "network"
	KindBodies   = "network_bodies"
	KindWSEvents = "websocket_events"
	KindActions  = "actions"
)

// Kinds lists every buffer kind.
var Kinds = []string{KindLogs, KindErrors, KindNetwork, KindBodies, KindWSEvents, KindActions}

// Clear empties the named buffers, or all of them when none are named.
func (s *Store) Clear(kinds ...string) error {
	if len(kinds) == 0 {
		kinds = Kinds
	}
	for _, k := range kinds {
		if !slices.Contains(Kinds, k) {
			return fmt.Errorf("unknown buffer %q; valid: %s", k, strings.Join(Kinds, ", "))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range kinds {
		switch k {
		case KindLogs:
			s.logs.clear()
		case KindErrors:
			s.errors.clear()
		case KindNetwork:
			s.network.clear()
		case KindBodies:
			s.bodies.clear()
		case KindWSEvents:
			s.ws.clear()
			clear(s.conns)
		case KindActions:
			s.actions.clear()
		}
	}
	return nil
}

// Fill is how full one buffer is.
type Fill struct {
	Count int `json:"count"`
	Cap   int `json:"cap"`
}

// Stats reports the fill of every buffer.
func (s *Store) Stats() map[string]Fill {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return map[string]Fill{
		KindLogs:     {s.logs.count, LogCap},
		KindErrors:   {s.errors.count, ErrorCap},
		KindNetwork:  {s.network.count, NetworkCap},
		KindBodies:   {s.bodies.count, BodyCap},
		KindWSEvents: {s.ws.count, WSEventCap},
		KindActions:  {s.actions.count, ActionCap},
	}
}
