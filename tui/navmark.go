package tui

import (
	"fmt"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// PageLeftMsg says a tab's document went away (the server's page_left
// event): the next entry of that tab is from a new document.
type PageLeftMsg wire.PageLeft

// navMark is a line in the Console and Network panes where the page
// navigated or reloaded: before the first entry of a tab's new document,
// or of a tab on another page than the entry before it in that pane.
type navMark struct {
	TS     capture.Time `json:"ts"`
	Tab    int          `json:"tab"`
	URL    string       `json:"url"`
	From   string       `json:"from,omitempty"`
	Reason string       `json:"reason,omitempty"`
}

// maxNavTabs bounds the tabs a pane remembers the page of.
const maxNavTabs = 64

// navMarks follows the page of each tab in one pane.
type navMarks map[int]navTab

type navTab struct {
	page string
	left *wire.PageLeft // the document went away; nil once marked
}

// tab makes room for tab's state.
func (n navMarks) room(tab int) {
	if _, ok := n[tab]; !ok && len(n) >= maxNavTabs {
		clear(n)
	}
}

// leave records that tab's document went away.
func (n navMarks) leave(p wire.PageLeft) {
	n.room(p.Tab)
	st := n[p.Tab]
	st.left = &p
	n[p.Tab] = st
}

// next returns the mark to put before an entry of tab on page, if it is
// the first of a new document or of another page.
func (n navMarks) next(ts capture.Time, tab int, page string) (row, bool) {
	n.room(tab)
	st := n[tab]
	prev := st.page
	if page != "" {
		st.page = page
	}
	left := st.left
	newDoc := left != nil && !ts.Before(left.TS.Time)
	if newDoc {
		st.left = nil
		newDoc = prev != "" // a mark goes between entries, not before a tab's first
	}
	n[tab] = st
	moved := prev != "" && page != "" && page != prev
	if !newDoc && !moved {
		return row{}, false
	}
	if page == "" {
		page = prev
	}
	mk := navMark{TS: ts, Tab: tab, URL: page, From: prev}
	what := "navigated to"
	if newDoc {
		// The line is where the document changed: a load's rows that come
		// later and started before this entry sort after it.
		mk.TS, mk.Reason = left.TS, left.Reason
		if !moved && left.Reason == "reload" {
			what = "reloaded"
		}
	}
	r := newRow(info, fmt.Sprintf("%-12s ── %s %s (tab %d) ──", stamp(mk.TS.Time), what, clean(page), tab))
	r.src = mk
	return r, true
}
