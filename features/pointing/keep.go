package pointing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// MaxKept bounds the board as Keep writes it, in bytes of JSON: what
// MaxBytes holds, with room for escaping; past it the oldest entries stay
// behind, counted as dropped.
const MaxKept = 2 * MaxBytes

// keptBoard is the board as the port's next owner takes it over. Read
// marks stay behind: they are per MCP session, and no session outlives
// the server that served it.
type keptBoard struct {
	Next    uint64      `json:"next"`
	Dropped int         `json:"dropped,omitempty"`
	Entries []keptEntry `json:"entries"` // newest first
}

type keptEntry struct {
	ID       uint64          `json:"id"`
	Kind     string          `json:"kind"`
	At       time.Time       `json:"at"`
	Note     string          `json:"note,omitempty"`
	Entry    json.RawMessage `json:"entry"`
	Summary  string          `json:"summary"`
	ReadBy   []string        `json:"read_by,omitempty"`
	ReadMore int             `json:"read_by_more,omitempty"`
}

// Keep is the board as JSON for the port's next owner (Restore), at most
// MaxKept bytes. It copies under the lock and encodes outside it, so
// readers of the board do not wait for the encoding.
func (b *Board) Keep() ([]byte, error) {
	b.mu.Lock()
	k := keptBoard{Next: b.nextID, Dropped: b.dropped, Entries: make([]keptEntry, 0, len(b.entries))}
	for _, e := range b.entries {
		k.Entries = append(k.Entries, keptEntry{ID: e.ID, Kind: e.Kind, At: e.At, Note: e.Note, Entry: e.Entry,
			Summary: e.Summary, ReadBy: slices.Clone(e.ReadBy), ReadMore: e.ReadMore})
	}
	b.mu.Unlock()
	size := 64 // the object around the entries
	for i, e := range k.Entries {
		one, err := encode(e)
		if err != nil {
			return nil, err
		}
		if size += len(one); size > MaxKept {
			k.Dropped += len(k.Entries) - i
			k.Entries = k.Entries[:i]
			break
		}
	}
	return encode(k)
}

// encode is v as JSON with <, > and & as they are: the file is read back
// by Restore only, and escaping them would grow a captured page sixfold.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Restore puts on an empty board what Keep wrote. An entry the board
// would not have taken, and those past the board's bound, are skipped and
// counted as dropped; restored says how many entries it took.
func (b *Board) Restore(data []byte) (restored, skipped int, err error) {
	if len(data) > MaxKept {
		return 0, 0, fmt.Errorf("%d bytes is above the bound of %d", len(data), MaxKept)
	}
	var k keptBoard
	if err := json.Unmarshal(data, &k); err != nil {
		return 0, 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.entries) > 0 {
		return 0, 0, errors.New("the board already holds entries")
	}
	var last uint64 // ids fall from the newest down
	full := false   // past the bound, the older entries go as Add lets them go
	for _, ke := range k.Entries {
		e, ok := ke.entry()
		full = full || ok && b.bytes+e.size() > b.max
		if !ok || full || (last != 0 && e.ID >= last) {
			skipped++
			continue
		}
		last = e.ID
		b.entries = append(b.entries, e)
		b.bytes += e.size()
	}
	b.dropped = max(k.Dropped, 0) + skipped
	b.nextID = max(k.Next, 1)
	if len(b.entries) > 0 {
		b.nextID = max(b.nextID, b.entries[0].ID+1)
	}
	return len(b.entries), skipped, nil
}

// entry is ke as the board holds it, checked as Add checks what it
// takes; false when Add would have refused it.
func (ke keptEntry) entry() (*Entry, bool) {
	if ke.ID == 0 || !slices.Contains(Kinds, ke.Kind) || len(ke.Entry) == 0 || len(ke.Entry) > MaxEntry ||
		string(ke.Entry) == "null" || !json.Valid(ke.Entry) {
		return nil, false
	}
	e := &Entry{ID: ke.ID, Kind: ke.Kind, At: ke.At, Note: cut(ke.Note, MaxNote), Entry: ke.Entry,
		Summary: cut(oneLine(ke.Summary), 200), ReadMore: max(ke.ReadMore, 0)}
	for _, r := range ke.ReadBy {
		if len(e.ReadBy) == MaxReaders {
			e.ReadMore++
			continue
		}
		e.ReadBy = append(e.ReadBy, cut(r, 100))
	}
	return e, true
}
