package server

import "github.com/gasoline-dev/gasoline/features/capture"

// page is a buffer read as the AI sees it: the tab and page every entry
// shares are said once, not per entry.
type page[T any] struct {
	Cursor  uint64 `json:"cursor"`
	Count   int    `json:"count"`
	More    int    `json:"more,omitempty"`
	Tab     int    `json:"tab,omitempty"`
	Page    string `json:"page,omitempty"`
	Entries []T    `json:"entries,omitempty"`
	// Reset is said when the cursor given could not be honoured.
	Reset string `json:"cursor_reset,omitempty"`
}

func render[T any, P interface {
	*T
	Where() (*int, *string)
}](r capture.Result[T]) page[T] {
	out := page[T]{Cursor: r.Cursor, Count: len(r.Entries), More: r.More, Entries: r.Entries}
	if r.Reset {
		out.Reset = cursorReset
	}
	if len(r.Entries) == 0 {
		return out
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
	for i := range r.Entries {
		t, p := P(&r.Entries[i]).Where()
		if sameTab >= 0 {
			*t = 0
		}
		if samePage != "\x00" {
			*p = ""
		}
	}
	return out
}
