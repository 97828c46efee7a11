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
	mu        sync.RWMutex
	seq       uint64
	logs      *ring[LogEntry]
	errors    *ring[LogEntry]
	network   *ring[NetworkEntry]
	bodies    *ring[NetworkBody]
	ws        *ring[WSEvent]
	actions   *ring[Action]
	conns     map[string]*WSConnection
	left      map[int]leftPage // tabs whose document went away (websocket.go)
	connsSeen uint64           // sockets first seen, to order those of one millisecond
	page      Page
	now       func() time.Time

	listeners []func(Event) // copy-on-write: add reads it under the lock
	onClear   []func(kinds []string)

	// origin is the first sequence number of this store's own; known the
	// highest a previous server handed out, as far as Resume was told.
	// Cursors in neither range cannot be honoured (see cursor).
	origin, known uint64
}

// NewStore returns an empty store. Cursors start from the current time in
// microseconds, so a cursor handed out by an earlier server process is always
// older than anything this one holds and never hides new entries.
func NewStore() *Store { return newStoreAt(time.Now()) }

func newStoreAt(start time.Time) *Store {
	return &Store{
		seq:     uint64(start.UnixMicro()),
		origin:  uint64(start.UnixMicro()),
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

// oneOf validates an enumerated field; it returns "" when v is allowed.
func oneOf(field, v string, allowed ...string) string {
	if slices.Contains(allowed, v) {
		return ""
	}
	return fmt.Sprintf("%s: %q is not one of %s", field, v, strings.Join(allowed, ", "))
}

// entry is what every captured kind does on the way into the store.
type entry[T any] interface {
	*T
	sanitize()
	check() string // "" when valid, else what is wrong
	stamp() *Time
}

// add sanitises (in place), validates, timestamps and stores a batch; also sees each
// stored entry with its sequence number. Bad entries are reported, and cost
// the good ones of their batch nothing.
func add[T any, P entry[T]](s *Store, kind string, r *ring[T], items []T, also func(uint64, *T)) (int, []Rejection) {
	var rej []Rejection
	var stored []Event
	s.mu.Lock()
	listeners := s.listeners
	defer func() {
		s.mu.Unlock()
		for _, ev := range stored {
			for _, fn := range listeners {
				fn(ev)
			}
		}
	}()
	n := 0
	for i := range items {
		e := P(&items[i])
		e.sanitize()
		if msg := e.check(); msg != "" {
			rej = append(rej, Rejection{i, msg})
			continue
		}
		if ts := e.stamp(); ts.IsZero() {
			ts.Time = s.now()
		}
		s.seq++
		r.push(s.seq, items[i])
		if also != nil {
			also(s.seq, &items[i])
		}
		if len(listeners) > 0 {
			stored = append(stored, Event{Kind: kind, Seq: s.seq, Entry: items[i]})
		}
		n++
	}
	return n, rej
}

// Event is one stored entry, as Subscribe delivers it.
type Event struct {
	Kind  string `json:"kind"`
	Seq   uint64 `json:"seq"`
	Entry any    `json:"entry"`
}

// Subscribe calls fn with every entry stored from now on, after the store's
// lock is released. fn must not block: it runs on the ingest path.
func (s *Store) Subscribe(fn func(Event)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners[:len(s.listeners):len(s.listeners)], fn)
}

// AddLogs stores console entries; errors also go to the error buffer so a
// flood of console.log cannot evict them.
func (s *Store) AddLogs(entries []LogEntry) (int, []Rejection) {
	return add(s, KindLogs, s.logs, entries, func(seq uint64, e *LogEntry) {
		if e.Level == "error" {
			s.errors.push(seq, *e)
		}
	})
}

// AddNetwork stores waterfall entries.
func (s *Store) AddNetwork(entries []NetworkEntry) (int, []Rejection) {
	return add(s, KindNetwork, s.network, entries, nil)
}

// AddBodies stores request/response payloads, truncated and with the values
// of secret headers, fields and parameters redacted.
func (s *Store) AddBodies(bodies []NetworkBody) (int, []Rejection) {
	return add(s, KindBodies, s.bodies, bodies, nil)
}

// AddActions stores user actions; values of password-like fields are dropped.
func (s *Store) AddActions(actions []Action) (int, []Rejection) {
	return add(s, KindActions, s.actions, actions, nil)
}

// AddWSEvents stores WebSocket events and updates the connection table,
// which tracks at most WSConnCap sockets (the oldest opened is evicted).
func (s *Store) AddWSEvents(events []WSEvent) (int, []Rejection) {
	var orphans []WSEvent
	n, rej := add(s, KindWSEvents, s.ws, events, func(_ uint64, e *WSEvent) { orphans = s.trackLive(*e, orphans) })
	if len(orphans) > 0 {
		s.AddWSEvents(orphans)
	}
	return n, rej
}

// SetPage records the tab the extension tracks.
func (s *Store) SetPage(p Page) {
	p.URL = scrubURL(p.URL)
	p.Title = scrubText(p.Title, MaxText)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.TS.IsZero() {
		p.TS.Time = s.now()
	}
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
	defer func() {
		onClear := s.onClear
		s.mu.Unlock()
		for _, fn := range onClear {
			fn(kinds)
		}
	}()
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

// AttachScreenshot names a screenshot file on the newest error of tab at
// (or up to 10 s before) ts, in both buffers that hold it; false when no
// such error is held.
func (s *Store) AttachScreenshot(tab int, ts Time, file string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var seq uint64
	s.errors.newest(func(q uint64, e *LogEntry) bool {
		if e.TabID == tab && !e.TS.After(ts.Time) && ts.Sub(e.TS.Time) < 10*time.Second {
			e.Screenshot, seq = file, q
			return false
		}
		return true
	})
	if seq == 0 {
		return false
	}
	s.logs.newest(func(q uint64, e *LogEntry) bool {
		if q == seq {
			e.Screenshot = file
			return false
		}
		return q > seq
	})
	return true
}
