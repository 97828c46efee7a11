package tui

import (
	"fmt"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// navMark is a line in the Console and Network panes where the page
// navigated: the first entry of a tab from another page than the one
// before it in that pane.
type navMark struct {
	TS   capture.Time `json:"ts"`
	Tab  int          `json:"tab"`
	URL  string       `json:"url"`
	From string       `json:"from"`
}

// maxNavTabs bounds the tabs a pane remembers the page of.
const maxNavTabs = 64

// navMarks follows the page of each tab in one pane.
type navMarks map[int]string

// next returns the mark to put before an entry of tab on page, if the tab
// was on another page before it.
func (n navMarks) next(ts capture.Time, tab int, page string) (row, bool) {
	if page == "" {
		return row{}, false
	}
	prev, seen := n[tab]
	if !seen && len(n) >= maxNavTabs {
		clear(n)
	}
	n[tab] = page
	if !seen || prev == page {
		return row{}, false
	}
	mk := navMark{TS: ts, Tab: tab, URL: page, From: prev}
	r := newRow(info, fmt.Sprintf("%-12s ── navigated to %s (tab %d) ──", stamp(ts.Time), clean(page), tab))
	r.src = mk
	return r, true
}
