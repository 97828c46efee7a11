package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// withSegments adds the segments of line to its parts; each gives up its
// room, one form at a time and at last whole, before the parts named in
// order.
func withSegments(segs []segment, line int, parts []part, order []int) ([]part, []int) {
	var first, last []int
	for _, sg := range segs {
		if sg.line != line || len(sg.forms) == 0 {
			continue
		}
		forms := sg.forms
		if forms[len(forms)-1] != "" {
			forms = append(forms[:len(forms):len(forms)], "") // dropped last
		}
		for range forms {
			if sg.late {
				last = append(last, len(parts))
			} else {
				first = append(first, len(parts))
			}
		}
		parts = append(parts, forms)
	}
	return parts, append(append(first, order...), last...)
}

// part is one field of a header line: its forms, longest first; an empty
// form drops the field.
type part []string

// squeeze joins the first form of each part with sep and, while the line
// is wider than width, takes the steps of order in turn, each moving the
// part it names to its next shorter form, and starts the steps over while
// a part can still move: a part named twice gives up room twice as soon.
// What is still too wide is cut with ….
func squeeze(width int, sep string, parts []part, order []int) string {
	form := make([]int, len(parts))
	join := func() string {
		var fs []string
		for i, p := range parts {
			if len(p) > 0 && p[form[i]] != "" {
				fs = append(fs, p[form[i]])
			}
		}
		return strings.Join(fs, sep)
	}
	line := join()
	for step := 0; width > 0 && lipgloss.Width(line) > width; step++ {
		if step == len(order) {
			if !movable(parts, form) {
				break
			}
			step = 0
		}
		if i := order[step]; form[i] < len(parts[i])-1 {
			form[i]++
			line = join()
		}
	}
	return fit(line, width)
}

// movable says whether a part has a shorter form left.
func movable(parts []part, form []int) bool {
	for i, p := range parts {
		if form[i] < len(p)-1 {
			return true
		}
	}
	return false
}

// tabsView renders the tab bar with the active pane's state on the right;
// tabHits knows where each tab is drawn.
func tabsView(titles []string, active int, status string, width int) string {
	var tabs []string
	for i, label := range tabLabels(titles, active, status, width) {
		if i == active {
			tabs = append(tabs, styleTabOn.Render(label))
		} else {
			tabs = append(tabs, styleTabOff.Render(label))
		}
	}
	left := strings.Join(tabs, " ")
	// The state's words before its first " · " are its fact (row 18/20,
	// a filter's count); a number is never cut: what does not fit goes.
	for _, form := range []string{status, strings.Split(status, " · ")[0], ""} {
		if gap := width - lipgloss.Width(left) - lipgloss.Width(form); gap >= 1 {
			return left + strings.Repeat(" ", gap) + styleDim.Render(form)
		}
	}
	return fit(left, width)
}
