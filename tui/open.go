package tui

import (
	"errors"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/capture"
)

var errNoTerminal = errors.New("no terminal to copy through")

// pick is what Enter opens and Y copies: the action waiting for the
// human when there is one (it covers the panes), else the selected row.
func (m *Model) pick() (src any, line string, ok bool) {
	if st, waiting := m.asking.waiting(); waiting {
		req := st.Pending[0]
		return req, req.Agent + " wants to " + req.Action, true
	}
	return m.panes[m.active].Pick()
}

// open shows everything about the selected row.
func (m *Model) open() tea.Cmd {
	src, _, ok := m.pick()
	if !ok {
		return notice("nothing to open: no row is selected")
	}
	title, text := describe(src, m.bodyList())
	m.detail = newDetail(title, text, m.width, m.bodyHeight())
	if m.active == paneNetwork {
		m.detail.setPicture(m.network.waterfall())
	}
	return nil
}

func (m *Model) bodyList() []capture.NetworkBody {
	out := make([]capture.NetworkBody, 0, m.bodies.len())
	m.bodies.each(func(b capture.NetworkBody) { out = append(out, b) })
	return out
}

// copy puts the open detail on the clipboard, or opens the copy menu on
// the selected row.
func (m *Model) copy() tea.Cmd {
	if m.detail != nil {
		return copyCmd(m.out, m.detail.title+"\n\n"+m.detail.text, m.inTmux)
	}
	return m.openCopy()
}

// detailKey handles a key while the detail is open: it scrolls, esc
// closes it, and keys that act on the pane say to close it first. ok is
// false for the global keys (copy, help, quit, panes), handled as usual.
func (m *Model) detailKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k, vp := m.keys, &m.detail.vp
	switch {
	case key.Matches(msg, k.Back):
		m.detail = nil
	case scroll(vp, msg, k):
	case key.Matches(msg, k.NextPane, k.PrevPane, k.Panes):
		m.detail = nil
		return nil, false
	case key.Matches(msg, k.Copy, k.Help, k.Quit, k.Pilot, k.Approval, k.Revoke, k.Doctor, k.Send, k.Unsend):
		return nil, false
	default:
		return notice(msg.String() + " works on the pane: esc closes the details first"), true
	}
	return nil, true
}

// scroll moves a viewport by a movement key; false for any other key.
func scroll(vp *viewport.Model, msg tea.KeyMsg, k KeyMap) bool {
	switch {
	case key.Matches(msg, k.Up):
		vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	case key.Matches(msg, k.Top):
		vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
	default:
		return false
	}
	return true
}
