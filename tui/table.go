package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// column is one column of a table that shrinks to fit the terminal.
type column struct {
	title string
	// min is the fewest cells it keeps; it shrinks in the order of the
	// table's shrink list, each to its min, before the next one does.
	min int
}

// columnWidths gives each column its natural width (its widest cell or
// title), then, while the table is wider than width, shrinks the columns
// named in shrink, in that order, down to their min. A column is never
// dropped: what no longer fits is cut with … by tableLine.
func columnWidths(width int, cols []column, cells [][]string, shrink []int) []int {
	w := make([]int, len(cols))
	for i, c := range cols {
		w[i] = lipgloss.Width(c.title)
	}
	for _, r := range cells {
		for i, c := range r {
			w[i] = max(w[i], lipgloss.Width(c))
		}
	}
	over := len(cols) - 1 - width // the spaces between columns
	for _, n := range w {
		over += n
	}
	for _, i := range shrink {
		if over <= 0 {
			break
		}
		cut := min(over, max(0, w[i]-cols[i].min))
		w[i] -= cut
		over -= cut
	}
	return w
}

// tableLine lays cells out in columns of the given widths, cutting with …
// what does not fit.
func tableLine(widths []int, cells []string) string {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(' ')
		}
		c = fit(c, widths[i])
		b.WriteString(c)
		if i < len(cells)-1 {
			b.WriteString(strings.Repeat(" ", max(0, widths[i]-lipgloss.Width(c))))
		}
	}
	return b.String()
}
