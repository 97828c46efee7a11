package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keyPress handles one key message. Keys that arrive in one read come as
// one message of several runes (bubbletea v1): outside a text input each
// is a key of its own, so `52` lands on pane 2 and `jj` moves two rows;
// once one of them opens a text input, the rest are typed into it.
//
// A bracketed paste is text, not keys: outside a text input it is refused,
// so pasting a URL cannot quit, revoke or approve anything.
func (m *Model) keyPress(msg tea.KeyMsg) tea.Cmd {
	if msg.Paste && !m.typing() {
		return notice("pasted text is not keys: / first to filter by it")
	}
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || m.typing() {
		return m.key(msg)
	}
	var cmds []tea.Cmd
	for i, r := range msg.Runes {
		if m.typing() {
			rest := msg
			rest.Runes = msg.Runes[i:]
			cmds = append(cmds, m.key(rest))
			break
		}
		k := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}
		if r == ' ' {
			k.Type = tea.KeySpace
		}
		cmds = append(cmds, m.key(k))
		m.panes[m.active].sync()
	}
	return tea.Batch(cmds...)
}

// typing says whether keys go to a text input: the filter, or the reason
// for a denial.
func (m *Model) typing() bool {
	_, waiting := m.asking.waiting()
	return m.filtering || m.pt.open || (waiting && m.asking.denying)
}

// key handles the global keys and hands the rest to the active pane.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	if m.filtering {
		return m.filterKey(msg)
	}
	if m.pt.open {
		return m.pointKey(msg)
	}
	if m.copyMenu != nil {
		return m.copyKey(msg)
	}
	if cmd, ok := m.askKey(msg); ok {
		return cmd
	}
	if cmd, ok := m.recoverKey(msg); ok {
		return cmd
	}
	if cmd, ok := m.trustKey(msg); ok {
		return cmd
	}
	if m.detail != nil {
		if cmd, ok := m.detailKey(msg); ok {
			return cmd
		}
	}
	switch {
	case key.Matches(msg, m.keys.Back):
		return m.escape()
	case key.Matches(msg, m.keys.Open):
		return m.open()
	case key.Matches(msg, m.keys.Copy):
		return m.copy()
	case key.Matches(msg, m.keys.Send):
		return m.startPoint()
	case key.Matches(msg, m.keys.Unsend):
		return m.clearPointed()
	case key.Matches(msg, m.keys.Doctor):
		return m.openDoctor()
	case key.Matches(msg, m.keys.Approval):
		return m.toggleApproval()
	case key.Matches(msg, m.keys.Quit):
		return tea.Quit
	case key.Matches(msg, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.layout()
	case key.Matches(msg, m.keys.NextPane):
		m.show((m.active + 1) % paneCount)
	case key.Matches(msg, m.keys.PrevPane):
		m.show((m.active + paneCount - 1) % paneCount)
	case key.Matches(msg, m.keys.Panes):
		m.show(int(msg.String()[0] - '1'))
	case key.Matches(msg, m.keys.Revoke) && m.active != paneOverrides:
		return m.overrides.revokeNewest()
	case key.Matches(msg, m.keys.Filter):
		m.filtering = true
		m.input.SetValue(m.panes[m.active].Filter())
		m.input.CursorEnd()
		m.layout()
		return m.input.Focus()
	case key.Matches(msg, m.keys.Pilot):
		return m.togglePilot()
	case key.Matches(msg, m.keys.Tabs):
		return m.cycleTab()
	case key.Matches(msg, m.keys.FreeTab):
		return m.freeTab()
	case key.Matches(msg, m.keys.AuditReads) && m.active == paneAudit:
		return m.toggleAuditReads()
	case key.Matches(msg, m.keys.AllServers) && m.active == paneAudit:
		m.auditAll = !m.auditAll
		m.scopeAudit()
	default:
		if cmd, ok := m.panes[m.active].Update(msg, m.keys); ok {
			return cmd
		}
		return notice(m.why(msg))
	}
	return nil
}

// why says what a key that does nothing in this pane is for.
func (m *Model) why(msg tea.KeyMsg) string {
	k := m.keys
	switch {
	case key.Matches(msg, k.RevokeAll, k.Allow):
		return fmt.Sprintf("%s %s in the Overrides pane: press %d", msg.String(), firstHelp(msg, k.RevokeAll, k.Allow), paneOverrides+1)
	case key.Matches(msg, k.AllServers):
		return fmt.Sprintf("A shows every server's lines in the Audit pane: press %d", paneAudit+1)
	case key.Matches(msg, k.Pause, k.Clear):
		return "space pauses and c clears the streams; Overrides is live state"
	}
	return fmt.Sprintf("%s does nothing here: ? shows every key", msg.String())
}

// firstHelp is the help text of the first binding msg matches.
func firstHelp(msg tea.KeyMsg, bs ...key.Binding) string {
	for _, b := range bs {
		if key.Matches(msg, b) {
			return b.Help().Desc
		}
	}
	return ""
}

// escape closes what is open: the full help, then a kept filter.
func (m *Model) escape() tea.Cmd {
	switch {
	case m.help.ShowAll:
		m.help.ShowAll = false
		m.layout()
	case m.active == paneNetwork && m.network.closeLoad():
	case m.panes[m.active].Filter() != "":
		_ = m.panes[m.active].SetFilter("") // the empty filter always parses
		m.input.Reset()
		return notice("dropped the filter")
	default:
		return notice("nothing to close")
	}
	return nil
}

// filterKey edits the active pane's filter, applying it as it is typed.
// While what is typed does not parse, the pane keeps the last filter that
// did and the prompt says what is wrong; enter keeps the prompt open.
func (m *Model) filterKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Apply):
		if m.filterErr != nil {
			return nil
		}
		m.filtering = false
		m.input.Blur()
	case key.Matches(msg, m.keys.Cancel):
		m.filtering, m.filterErr = false, nil
		m.input.Blur()
		m.input.Reset()
		_ = m.panes[m.active].SetFilter("")
	default:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		m.filterErr = m.panes[m.active].SetFilter(m.input.Value())
		return cmd
	}
	m.layout()
	return nil
}
