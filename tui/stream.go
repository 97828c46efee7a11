package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// row is one line of a stream pane.
type row struct {
	text   string // plain, one line, safe for the terminal
	styled string // text in its class's style, rendered once on arrival
	port   int    // the server an audit row came from
}

func newRow(c class, text string) row {
	if c == plain {
		return row{text: text, styled: text}
	}
	return row{text: text, styled: c.style().Render(text)}
}

// streamPane is a live, bounded, filterable list of rows that follows new
// ones unless the human scrolled up or paused.
type streamPane struct {
	name    string
	colHead string // column titles
	note    string // right of the column titles
	empty   string // what an empty pane says
	rows    ring[row]
	held    ring[row] // arrived while paused
	filter  string    // lower case
	paused  bool
	follow  bool
	vp      viewport.Model
	width   int
	dirty   bool
	shifted int // shown rows that scrolled off the top since the last sync
	matched int
	// port, when set, shows only the rows of the server on that port.
	port int
}

func newStreamPane(name, colHead, empty string) *streamPane {
	vp := viewport.New(0, 0)
	return &streamPane{name: name, colHead: colHead, empty: empty, follow: true, vp: vp,
		rows: newRing[row](PaneLines), held: newRing[row](PaneLines)}
}

// Title names the pane in the tab bar.
func (p *streamPane) Title() string { return p.name }

// add appends rows; while paused they wait, unseen.
func (p *streamPane) add(rows []row) {
	for _, r := range rows {
		if p.paused {
			p.held.push(r)
			continue
		}
		if old, full := p.rows.push(r); full && p.match(old) {
			p.shifted++
		}
	}
	if !p.paused && len(rows) > 0 {
		p.dirty = true
	}
}

func (p *streamPane) match(r row) bool {
	if p.port != 0 && r.port != p.port {
		return false
	}
	return p.filter == "" || strings.Contains(strings.ToLower(r.text), p.filter)
}

// ShowPort shows only the rows of the server on port (0: every row).
func (p *streamPane) ShowPort(port int) {
	if p.port != port {
		p.port, p.follow, p.dirty = port, true, true
	}
}

// SetSize gives the pane its share of the screen, column titles included.
func (p *streamPane) SetSize(w, h int) {
	p.width = w
	p.vp.Width, p.vp.Height = w, max(1, h-1)
	p.dirty = true
}

// SetFilter shows only rows containing s, ignoring case.
func (p *streamPane) SetFilter(s string) {
	p.filter = strings.ToLower(s)
	p.follow = true
	p.dirty = true
}

// Filter is the pane's filter.
func (p *streamPane) Filter() string { return p.filter }

// Clear empties the view; the server's buffers are untouched.
func (p *streamPane) Clear() {
	p.rows.reset()
	p.held.reset()
	p.follow = true
	p.dirty = true
}

// Update handles the pane's own keys: scrolling, pause and clear.
func (p *streamPane) Update(msg tea.KeyMsg, k KeyMap) tea.Cmd {
	p.sync()
	switch {
	case key.Matches(msg, k.Up):
		p.vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		p.vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		p.vp.PageUp()
	case key.Matches(msg, k.PageDown):
		p.vp.PageDown()
	case key.Matches(msg, k.Top):
		p.vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		p.vp.GotoBottom()
	case key.Matches(msg, k.Pause):
		p.paused = !p.paused
		if !p.paused {
			p.held.each(func(r row) { p.add([]row{r}) })
			p.held.reset()
			p.dirty = true
		}
		return nil
	case key.Matches(msg, k.Clear):
		p.Clear()
		return nil
	default:
		return nil
	}
	p.follow = p.vp.AtBottom()
	return nil
}

// sync rebuilds the viewport's content after changes. It runs once per
// update at most, so a batch of a thousand rows costs one rebuild.
func (p *streamPane) sync() {
	if !p.dirty {
		return
	}
	var b strings.Builder
	n := 0
	p.rows.each(func(r row) {
		if !p.match(r) {
			return
		}
		if n > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(r.styled)
		n++
	})
	p.matched = n
	off := p.vp.YOffset
	p.vp.SetContent(b.String())
	if p.follow {
		p.vp.GotoBottom()
	} else {
		// Keep the rows the human is reading in place.
		p.vp.SetYOffset(off - p.shifted)
	}
	p.shifted, p.dirty = 0, false
}

// View renders the pane: column titles, then rows.
func (p *streamPane) View() string {
	head := styleColHead.Render(fit(p.colHead, p.width))
	if room := p.width - lipgloss.Width(p.colHead) - 2; p.note != "" && room > 10 {
		note := fitLeft(p.note, room)
		head += strings.Repeat(" ", p.width-lipgloss.Width(p.colHead)-lipgloss.Width(note)) + styleDim.Render(note)
	}
	if p.matched == 0 {
		msg := p.empty
		if p.filter != "" {
			msg = fmt.Sprintf("nothing matches %q", p.filter)
		}
		return lipgloss.JoinVertical(lipgloss.Left, head,
			lipgloss.NewStyle().Width(p.vp.Width).Height(p.vp.Height).Render(styleDim.Render(msg)))
	}
	return head + "\n" + p.vp.View()
}

// Status says whether the pane follows, for the tab bar.
func (p *streamPane) Status() string {
	var s string
	switch {
	case p.paused:
		s = fmt.Sprintf("PAUSED · %d new", p.held.len())
	case !p.follow:
		s = "scrolled · end to follow"
	default:
		s = "following"
	}
	if p.filter != "" {
		s = fmt.Sprintf("filter %q: %d · %s", p.filter, p.matched, s)
	}
	return s
}
