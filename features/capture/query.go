package capture

import (
	"math"
	"slices"
	"strings"
)

// Query selects entries from one buffer. Zero values mean "no filter".
type Query struct {
	// After is a cursor from an earlier Result: only newer entries match.
	After uint64
	// Limit caps the entries returned (DefaultLimit when 0, at most MaxLimit).
	Limit int
	// URL keeps entries whose URL contains it (page URL for logs and actions).
	URL string
	// Level keeps log entries at this level or more severe.
	Level string
	// Method, StatusMin and StatusMax filter network entries and bodies.
	Method    string
	StatusMin int
	StatusMax int
	// ConnectionID and Direction filter WebSocket events.
	ConnectionID string
	Direction    string
	// TabID keeps entries from one tab.
	TabID int
	// All returns every match, whatever Limit: for in-process analyses that
	// read whole buffers (a console buffer holds more than MaxLimit). Never
	// set from a client's request.
	All bool
}

// Result is a page of entries, newest first.
type Result[T any] struct {
	Entries []T
	// Cursor is passed back as Query.After to get only what is new.
	Cursor uint64
	// More counts matching entries newer than After that Limit left out.
	More int
	// Total is how many entries the buffer holds.
	Total int
	// Reset says After came from a previous server and could not be
	// honoured exactly: entries that server held after it may be missing
	// (see Store.Resume).
	Reset bool
}

func (q Query) limit(def int) int {
	switch {
	case q.All:
		return math.MaxInt
	case q.Limit <= 0:
		return def
	case q.Limit > MaxLimit:
		return MaxLimit
	}
	return q.Limit
}

func (q Query) tab(id int) bool { return q.TabID == 0 || q.TabID == id }

func (q Query) status(s int) bool {
	return (q.StatusMin == 0 || s >= q.StatusMin) && (q.StatusMax == 0 || s <= q.StatusMax)
}

func (q Query) method(m string) bool { return q.Method == "" || strings.EqualFold(q.Method, m) }

func (q Query) url(u string) bool { return q.URL == "" || strings.Contains(u, q.URL) }

// Levels are the console levels, least severe first.
var Levels = []string{"debug", "log", "info", "warn", "error"}

// Directions are a WebSocket message's directions.
var Directions = []string{"incoming", "outgoing"}

var severity = map[string]int{"debug": 0, "log": 1, "info": 1, "warn": 2, "error": 3}

func (q Query) level(l string) bool { return q.Level == "" || severity[l] >= severity[q.Level] }

// collect walks a ring newest first. The caller holds the read lock.
func collect[T any](s *Store, r *ring[T], q Query, def int, match func(*T) bool) Result[T] {
	limit := q.limit(def)
	after, reset := s.cursor(q.After)
	res := Result[T]{Cursor: s.seq, Total: r.count, Reset: reset}
	r.newest(func(seq uint64, v *T) bool {
		if seq <= after {
			return false
		}
		if !match(v) {
			return true
		}
		if len(res.Entries) < limit {
			res.Entries = append(res.Entries, *v)
		} else {
			res.More++
		}
		return true
	})
	return res
}

// Logs returns console entries.
func (s *Store) Logs(q Query) Result[LogEntry] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return collect(s, s.logs, q, DefaultLimit, func(e *LogEntry) bool {
		return q.tab(e.TabID) && q.url(e.Page) && q.level(e.Level)
	})
}

// Errors returns console errors, uncaught exceptions and unhandled rejections.
func (s *Store) Errors(q Query) Result[LogEntry] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return collect(s, s.errors, q, DefaultLimit, func(e *LogEntry) bool {
		return q.tab(e.TabID) && q.url(e.Page)
	})
}

// Network returns the request waterfall.
func (s *Store) Network(q Query) Result[NetworkEntry] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return collect(s, s.network, q, DefaultLimit, func(e *NetworkEntry) bool {
		return q.tab(e.TabID) && q.url(e.URL) && q.method(e.Method) && q.status(e.Status)
	})
}

// Bodies returns request/response payloads.
func (s *Store) Bodies(q Query) Result[NetworkBody] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return collect(s, s.bodies, q, DefaultBodies, func(b *NetworkBody) bool {
		return q.tab(b.TabID) && q.url(b.URL) && q.method(b.Method) && q.status(b.Status)
	})
}

// WSEvents returns WebSocket lifecycle events and messages.
func (s *Store) WSEvents(q Query) Result[WSEvent] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	res := collect(s, s.ws, q, DefaultLimit, func(e *WSEvent) bool {
		return q.tab(e.TabID) && q.url(e.URL) &&
			(q.ConnectionID == "" || e.ID == q.ConnectionID) &&
			(q.Direction == "" || e.Direction == q.Direction)
	})
	// A socket's lifecycle events can reach the store before the messages
	// queued ahead of them (a page being left sends its close at once): the
	// answer lists them by when they happened; the cursor still counts
	// arrivals, so a late one is never skipped.
	slices.SortStableFunc(res.Entries, func(a, b WSEvent) int { return b.TS.Compare(a.TS.Time) })
	return res
}

// Actions returns user actions.
func (s *Store) Actions(q Query) Result[Action] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return collect(s, s.actions, q, DefaultLimit, func(a *Action) bool {
		return q.tab(a.TabID) && q.url(a.Page)
	})
}
