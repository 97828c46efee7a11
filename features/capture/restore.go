package capture

import (
	"errors"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Buffers names the buffers an event's entry is in: an error-level console
// entry is in the error buffer too, which keeps it longer.
func (e Event) Buffers() []string {
	if l, ok := e.Entry.(LogEntry); ok && l.Level == "error" {
		return logsAndErrors
	}
	return kindNames[e.Kind]
}

var (
	logsAndErrors = []string{KindLogs, KindErrors}
	kindNames     = map[string][]string{KindLogs: {KindLogs}, KindNetwork: {KindNetwork}, KindBodies: {KindBodies},
		KindWSEvents: {KindWSEvents}, KindActions: {KindActions}}
)

// OnClear calls fn with the kinds Clear emptied (every kind when it was
// given none), after the store's lock is released.
func (s *Store) OnClear(fn func(kinds []string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onClear = append(s.onClear[:len(s.onClear):len(s.onClear)], fn)
}

// Import puts back into the buffer named kind one entry a previous server
// on this port stored, as JSON, with its sequence number. Entries of a
// kind must come oldest first. The entry is sanitised again, so nothing
// read back can carry more than capture keeps; listeners are not told.
func (s *Store) Import(kind string, seq uint64, data []byte) error {
	switch kind {
	case KindLogs:
		return restore(s, s.logs, seq, data, nil)
	case KindErrors:
		return restore(s, s.errors, seq, data, nil)
	case KindNetwork:
		return restore(s, s.network, seq, data, nil)
	case KindBodies:
		return restore(s, s.bodies, seq, data, nil)
	case KindWSEvents:
		return restore(s, s.ws, seq, data, s.track)
	case KindActions:
		return restore(s, s.actions, seq, data, nil)
	}
	return fmt.Errorf("import: unknown buffer %q", kind)
}

func restore[T any, P entry[T]](s *Store, r *ring[T], seq uint64, data []byte, also func(T)) error {
	var v T
	if err := jsonv2.Unmarshal(data, &v, jsontext.AllowInvalidUTF8(true)); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	e := P(&v)
	e.sanitize()
	if msg := e.check(); msg != "" {
		return errors.New("import: " + msg)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.count > 0 && seq <= r.seqs[(r.next-1+len(r.seqs))%len(r.seqs)] {
		return fmt.Errorf("import: sequence %d is out of order", seq)
	}
	r.push(seq, v)
	if also != nil {
		also(v)
	}
	return nil
}

// Resume ends an import: this store's sequence goes on above seq, the
// highest sequence number the previous server handed out, and cursors up
// to seq stay meaningful.
func (s *Store) Resume(seq uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.known = max(s.known, seq)
	s.seq = max(s.seq, seq)
}

// cursor is the cursor a read goes on from, and whether after could not be
// honoured: a cursor this store handed out, or one a previous server handed
// out up to what Resume was told, is; one from between the two (the end of
// a previous server's history was not kept, or none was restored) or
// beyond this store's newest entry is not. One beyond is read as no cursor,
// or nothing would be new until this store caught up. The caller holds
// the lock.
func (s *Store) cursor(after uint64) (uint64, bool) {
	switch {
	case after == 0:
		return 0, false
	case after > s.seq:
		return 0, true
	}
	return after, after < s.origin && after > s.known
}
