package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// tabLabels are the tab bar's labels, unstyled: the active one bracketed.
// When the bar and the pane's status (statusCells wide) do not fit in
// width, the other tabs shorten their titles to three letters, then the
// active one too.
func tabLabels(titles []string, active int, status string, width int) []string {
	// Stages, each giving up a little more: whole names; WebSocket as WS;
	// the pane's state cut to nine cells (tabsView keeps its words before
	// " · " when they fit, or none), unless those words are a filter or
	// where an open detail is scrolled, which stay whole; three letters
	// for the inactive tabs; then for every tab.
	statusCells := lipgloss.Width(status)
	fact := min(statusCells, 9)
	if first := strings.Split(status, " · ")[0]; strings.HasPrefix(first, "filter ") || strings.HasPrefix(first, "lines ") {
		fact = lipgloss.Width(first)
	}
	stages := []struct {
		short  func(i int, t string) string
		status int
	}{
		{func(_ int, t string) string { return t }, statusCells},
		{func(_ int, t string) string { return readableTitle(t) }, statusCells},
		{func(_ int, t string) string { return readableTitle(t) }, fact},
		{func(i int, t string) string {
			if i == active {
				return readableTitle(t)
			}
			return shortTitle(t)
		}, fact},
		{func(_ int, t string) string { return shortTitle(t) }, 0},
	}
	var out []string
	for _, st := range stages {
		out = make([]string, len(titles))
		for i, t := range titles {
			t = st.short(i, t)
			out[i] = fmt.Sprintf(" %d %s ", i+1, t)
			if i == active {
				out[i] = fmt.Sprintf("[%d %s]", i+1, t)
			}
		}
		if lipgloss.Width(strings.Join(out, " "))+1+st.status <= width {
			break
		}
	}
	return out
}

// readableTitle is a tab's title in the fewest letters that still read
// as a word: WebSocket is WS; the others stay whole.
func readableTitle(t string) string {
	if rest, ok := strings.CutPrefix(t, "WebSocket"); ok {
		return "WS" + rest
	}
	return t
}

// shortTitle is a tab's title cut to three letters, a count kept.
func shortTitle(t string) string {
	word, rest, _ := strings.Cut(t, " ")
	if r := []rune(word); len(r) > 3 {
		word = string(r[:3])
	}
	return strings.TrimSpace(word + " " + rest)
}

// span is the cells [from, to) of one tab in the tab bar.
type span struct{ from, to int }

// tabHits are the tabs' places in the bar tabsView draws, for clicks.
// A tab cut off by a narrow terminal is clickable where it shows.
func tabHits(titles []string, active int, status string, width int) []span {
	var out []span
	x := 0
	for _, l := range tabLabels(titles, active, status, width) {
		w := lipgloss.Width(l)
		out = append(out, span{x, min(x+w, width)})
		x += w + 1
	}
	return out
}

// tabAt is the tab under column x, or -1.
func tabAt(hits []span, x int) int {
	for i, h := range hits {
		if x >= h.from && x < h.to {
			return i
		}
	}
	return -1
}

// tabBarLine is the screen line of the tab bar: under the header.
const tabBarLine = 4

// wheelRows is how far one turn of the wheel moves.
const wheelRows = 3

// mouse handles the wheel (scrolls the detail, or moves the selection)
// and clicks on the tab bar (switch pane) and the header (doctor).
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	switch {
	case msg.Button == tea.MouseButtonWheelUp || msg.Button == tea.MouseButtonWheelDown:
		n := wheelRows
		if msg.Button == tea.MouseButtonWheelUp {
			n = -n
		}
		if m.detail.open {
			m.detail.wheel(n)
			return nil
		}
		m.pane().Scroll(n)
	case msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft:
		if msg.Y == tabBarLine {
			if i := tabAt(tabHits(m.panes.titles(), m.panes.active, m.tabStatus(), m.width), msg.X); i >= 0 {
				m.detail.close()
				m.panes.show(i)
			}
		}
	}
	return nil
}
