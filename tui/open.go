package tui

import (
	"errors"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

var errNoTerminal = errors.New("no terminal to copy through")

// pick is what Enter opens and Y copies: the action waiting for the
// human when there is one (it covers the panes), else the selected row.
func (m *Model) pick() (src any, line string, ok bool) {
	if st, waiting := m.approval.waiting(); waiting {
		req := st.Pending[0]
		return req, req.Agent + " wants to " + req.Action, true
	}
	return m.pane().Pick()
}

// open shows everything about the selected row.
func (m *Model) open() tea.Cmd {
	src, _, ok := m.pick()
	if !ok {
		return notice("nothing to open: no row is selected")
	}
	title, text := describe(src, m.bodies.all())
	m.detail.show(title, text, m.width, m.bodyHeight())
	if m.panes.active == paneNetwork {
		m.detail.setPicture(m.panes.network.waterfall())
	}
	return nil
}

// copySelected puts the open detail on the clipboard, or opens the copy
// menu on the selected row.
func (m *Model) copySelected() tea.Cmd {
	if m.detail.open {
		return m.copy.write(m.detail.title + "\n\n" + m.detail.text)
	}
	src, line, ok := m.pick()
	if !ok {
		return notice("nothing to copy: no row is selected")
	}
	title, _ := describe(src, nil)
	m.copy.show(copyChoices(src, line, m.bodies.all()), title)
	return nil
}

// detailKey offers a key to the open detail: it scrolls and closes
// itself. The root's keys that act on the row or the dashboard go on (a
// pane switch closes the detail first); any other key works on the pane,
// and says to close the detail first.
func (m *Model) detailKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if !m.detail.open {
		return nil, false
	}
	if cmd, ok := m.detail.Update(msg); ok {
		return cmd, true
	}
	g := m.keys
	switch {
	case key.Matches(msg, g.NextPane, g.PrevPane, g.Panes):
		m.detail.close()
		return nil, false
	case key.Matches(msg, g.Copy, g.Help, g.Quit, g.Pilot, m.panes.overrides.keys.Revoke, g.Doctor, g.Send, g.Unsend):
		return nil, false
	}
	return notice(msg.String() + " works on the pane: esc closes the details first"), true
}
