package server

import (
	"encoding/json"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// maxAnswerBytes bounds the entries of one buffer read. An AI client takes
// far less into its context than observe's limit allows (500 of the largest
// entries make 7.35 MB), and an answer is copied several times on its way
// out (encoded, escaped into the JSON-RPC result, held for a slow peer):
// the bound keeps the server's memory under its goal with a stalled peer.
const maxAnswerBytes = 1 << 20

// entryRoom bounds what an entry's JSON has besides its escaped text: the
// field names, numbers, booleans and punctuation.
const entryRoom = 512

// answerCut is what a read says when the bound left entries out.
const answerCut = "the answer is cut at 1 MB: the older entries counted in more are left out; lower limit or narrow the filters"

// page is a buffer read as the AI sees it: the tab and page every entry
// shares are said once, not per entry. Entries are the entries, or their
// JSON when the bound had to be measured.
type page struct {
	riders
	Cursor  uint64 `json:"cursor"`
	Count   int    `json:"count"`
	More    int    `json:"more,omitempty"`
	Cut     string `json:"cut,omitempty"`
	Tab     int    `json:"tab,omitempty"`
	Page    string `json:"page,omitempty"`
	Entries any    `json:"entries,omitempty"`
	// Reset is said when the cursor given could not be honoured.
	Reset string `json:"cursor_reset,omitempty"`
	// Lost names the gaps in what the page sent within the entries' time
	// range (loss.go); Filtered, on logs, the console calls log_level left
	// out (filtered.go).
	Lost     []string       `json:"lost,omitempty"`
	Filtered map[string]any `json:"filtered,omitempty"`
	// from and to are the entries' time range, for Lost.
	from, to time.Time
}

// entry is what render reads of a buffer's entry.
type entry[T any] interface {
	*T
	Where() (*int, *string)
	When() time.Time
	TextBytes() int
}

func render[T any, P entry[T]](r capture.Result[T]) (*page, error) {
	out := &page{Cursor: r.Cursor, More: r.More}
	if r.Reset {
		out.Reset = cursorReset
	}
	if len(r.Entries) == 0 {
		return out, nil
	}
	tab, pg := P(&r.Entries[0]).Where()
	sameTab, samePage := *tab, *pg
	for i := range r.Entries {
		t, p := P(&r.Entries[i]).Where()
		if *t != sameTab {
			sameTab = -1
		}
		if *p != samePage {
			samePage = "\x00"
		}
	}
	if sameTab >= 0 {
		out.Tab = sameTab
	}
	if samePage != "\x00" {
		out.Page = samePage
	}
	most := 0
	for i := range r.Entries {
		if ts := P(&r.Entries[i]).When(); !ts.IsZero() {
			if out.from.IsZero() || ts.Before(out.from) {
				out.from = ts
			}
			if ts.After(out.to) {
				out.to = ts
			}
		}
		t, p := P(&r.Entries[i]).Where()
		if sameTab >= 0 {
			*t = 0
		}
		if samePage != "\x00" {
			*p = ""
		}
		most += 6*P(&r.Entries[i]).TextBytes() + entryRoom
	}
	out.Count = len(r.Entries)
	if most <= maxAnswerBytes {
		out.Entries = r.Entries
		return out, nil
	}
	return cut(out, r.Entries)
}

// cut is out with the entries that fit the answer's bound, newest first,
// measured as JSON; the rest are counted in More.
func cut[T any](out *page, entries []T) (*page, error) {
	var kept []json.RawMessage
	size := 0
	for i := range entries {
		b, err := json.Marshal(&entries[i])
		if err != nil {
			return nil, err
		}
		// The newest entry goes whatever its size: an entry is bounded at
		// ingest far below the answer's bound.
		if size += len(b) + 1; size > maxAnswerBytes && len(kept) > 0 {
			out.More += len(entries) - i
			out.Cut = answerCut
			break
		}
		kept = append(kept, b)
	}
	out.Count, out.Entries = len(kept), kept
	return out, nil
}
