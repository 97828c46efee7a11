// Package pointing is the board of what the human pointed the AI at: a row
// of the dashboard (a request with its bodies, an error with its stack, a
// WebSocket message, an action, an audit line) or an element picked in the
// page, with an optional note. Every AI session reads each entry once at
// the top of its next observe; observe{what:"pointed"} lists them all.
package pointing

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Kinds of what the human can point at.
const (
	KindConsole   = "console"
	KindError     = "error"
	KindNetwork   = "network"
	KindWebSocket = "websocket"
	KindAction    = "action"
	KindAudit     = "audit"
	KindElement   = "element"
)

// Kinds lists every kind.
var Kinds = []string{KindConsole, KindError, KindNetwork, KindWebSocket, KindAction, KindAudit, KindElement}

// Bounds of the board.
const (
	// MaxNote is the note's length in characters; a longer one is cut.
	MaxNote = 500
	// MaxEntry is the largest entry the board takes, in bytes of JSON: a
	// request with both bodies at the capture bounds and its headers fits.
	MaxEntry = 128 << 10
	// MaxBytes bounds the board: past it the oldest entries go, counted.
	MaxBytes = 1 << 20
	// MaxReaders is how many readers' names an entry keeps; more are counted.
	MaxReaders = 8
	// MaxSessions bounds the per-session read marks; the oldest session's
	// mark is forgotten past it (that session then reads the board again).
	MaxSessions = 256
)

// overhead is what an entry costs besides its JSON and note.
const overhead = 128

// Entry is one thing the human pointed at.
type Entry struct {
	ID    uint64          `json:"id"`
	Kind  string          `json:"kind"`
	At    time.Time       `json:"-"`
	Note  string          `json:"note,omitempty"`
	Entry json.RawMessage `json:"entry"`
	// Summary is one line that names the entry ("GET /api/x → 500").
	Summary string `json:"summary"`
	// ReadBy names the AI clients that read it, each once, in order;
	// ReadMore counts reads by other clients past MaxReaders.
	ReadBy   []string `json:"read_by,omitempty"`
	ReadMore int      `json:"read_by_more,omitempty"`
}

// When is the entry's time as the AI reads it.
func (e Entry) When() string { return e.At.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// MarshalJSON adds the time, rendered as capture renders times.
func (e Entry) MarshalJSON() ([]byte, error) {
	type plain Entry
	return json.Marshal(struct {
		plain
		At string `json:"at"`
	}{plain(e), e.When()})
}

func (e *Entry) size() int { return len(e.Entry) + len(e.Note) + len(e.Summary) + overhead }

// Board holds the entries, newest first, within MaxBytes.
type Board struct {
	mu      sync.Mutex
	now     func() time.Time
	max     int
	entries []*Entry // newest first
	bytes   int
	nextID  uint64
	dropped int
	// read is each session's newest entry read; order is the sessions in
	// the order they first read, to forget the oldest past MaxSessions.
	read  map[string]uint64
	order []string
}

// New returns an empty board bounded to maxBytes (MaxBytes when 0).
func New(maxBytes int, now func() time.Time) *Board {
	if maxBytes <= 0 {
		maxBytes = MaxBytes
	}
	if now == nil {
		now = time.Now
	}
	return &Board{now: now, max: maxBytes, read: make(map[string]uint64), nextID: 1}
}

// Add puts an entry on top of the board and returns it. entry is the
// whole thing pointed at, as JSON; note is cut to MaxNote characters.
func (b *Board) Add(kind string, entry json.RawMessage, summary, note string) (Entry, error) {
	if !slices.Contains(Kinds, kind) {
		return Entry{}, fmt.Errorf("kind %q is not one of %s", kind, strings.Join(Kinds, ", "))
	}
	if len(entry) == 0 || string(entry) == "null" || !json.Valid(entry) {
		return Entry{}, fmt.Errorf("entry: want a JSON value")
	}
	if len(entry) > MaxEntry {
		return Entry{}, fmt.Errorf("entry: %d bytes is above the bound of %d", len(entry), MaxEntry)
	}
	e := &Entry{Kind: kind, Entry: slices.Clone(entry), Summary: cut(oneLine(summary), 200), Note: cut(strings.TrimSpace(note), MaxNote)}
	b.mu.Lock()
	defer b.mu.Unlock()
	e.ID, e.At = b.nextID, b.now()
	b.nextID++
	b.entries = append([]*Entry{e}, b.entries...)
	b.bytes += e.size()
	for b.bytes > b.max && len(b.entries) > 1 {
		last := b.entries[len(b.entries)-1]
		b.entries = b.entries[:len(b.entries)-1]
		b.bytes -= last.size()
		b.dropped++
	}
	return e.copy(), nil
}

// List is every entry, newest first, and how many the bound dropped;
// session, when not empty, has now read them all (its name is reader).
func (b *Board) List(session, reader string) ([]Entry, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Entry, 0, len(b.entries))
	for _, e := range b.entries {
		if session != "" {
			b.markRead(e, session, reader)
		}
		out = append(out, e.copy())
	}
	if session != "" && len(b.entries) > 0 {
		b.setRead(session, b.entries[0].ID)
	}
	return out, b.dropped
}

// Unread is what the session has not read yet, newest first; it has read
// them once this returns.
func (b *Board) Unread(session, reader string) []Entry {
	b.mu.Lock()
	defer b.mu.Unlock()
	seen := b.read[session]
	var out []Entry
	for _, e := range b.entries {
		if e.ID <= seen {
			break
		}
		b.markRead(e, session, reader)
		out = append(out, e.copy())
	}
	if len(out) > 0 {
		b.setRead(session, out[0].ID)
	}
	return out
}

// Newest is the entry on top, if any.
func (b *Board) Newest() (Entry, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.entries) == 0 {
		return Entry{}, false
	}
	return b.entries[0].copy(), true
}

// Dropped is how many entries the bound dropped.
func (b *Board) Dropped() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dropped
}

// Clear takes every entry off the board and says how many there were.
// Ids go on rising, so a session's read mark stays meaningful.
func (b *Board) Clear() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(b.entries)
	b.entries, b.bytes = nil, 0
	return n
}

// Forget drops the session's read mark (its session ended).
func (b *Board) Forget(session string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.read[session]; !ok {
		return
	}
	delete(b.read, session)
	b.order = slices.DeleteFunc(b.order, func(s string) bool { return s == session })
}

func (b *Board) markRead(e *Entry, session, reader string) {
	if e.ID <= b.read[session] {
		return
	}
	if reader == "" {
		reader = "unknown"
	}
	reader = cut(reader, 100)
	// A name once: six sessions of one client read it, one reader shows.
	if slices.Contains(e.ReadBy, reader) {
		return
	}
	if len(e.ReadBy) < MaxReaders {
		e.ReadBy = append(e.ReadBy, reader)
	} else {
		e.ReadMore++
	}
}

func (b *Board) setRead(session string, id uint64) {
	if _, ok := b.read[session]; !ok {
		if len(b.order) >= MaxSessions {
			delete(b.read, b.order[0])
			b.order = b.order[1:]
		}
		b.order = append(b.order, session)
	}
	b.read[session] = id
}

func (e *Entry) copy() Entry {
	c := *e
	c.ReadBy = slices.Clone(e.ReadBy)
	return c
}

// cut keeps the first n characters of s, ending in … when it cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// oneLine makes s one line: control characters become spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}
