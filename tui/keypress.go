package tui

import (
	"fmt"
	"slices"

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
		m.pane().sync()
	}
	return tea.Batch(cmds...)
}

// typing says whether keys go to a text input: the filter, the note for
// the AI, or the reason for a denial.
func (m *Model) typing() bool {
	return m.filter.on || m.point.on || m.approval.typing()
}

// popups are the components over the panes in the order a key is offered
// to them: each takes the keys it has a use for while it is open (a text
// input takes them all) and says whether it took the key. The filter and
// the notes for the AI are typed, the copy menu waits for its choice, the
// approval overlay must be answered before anything acts on the page, the
// decisions and origins prompts before anything else, and the detail
// stands over the pane it came from.
func (m *Model) popups() []func(tea.KeyMsg) (tea.Cmd, bool) {
	return []func(tea.KeyMsg) (tea.Cmd, bool){
		func(k tea.KeyMsg) (tea.Cmd, bool) { return m.filter.Update(k, m.pane()) },
		m.point.Update,
		m.copy.Update,
		m.approval.Update,
		m.recovery.Update,
		m.origins.Update,
		m.detailKey,
	}
}

// key offers a key to the pop-ups, then takes the root's own keys, then
// hands it to the active pane; a key nobody takes says what it is for.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	// The filter's prompt changes the bar's height: the panes get the rest.
	filtering := m.filter.on
	defer func() {
		if m.filter.on != filtering {
			m.layout()
		}
	}()
	for _, take := range m.popups() {
		if cmd, ok := take(msg); ok {
			return cmd
		}
	}
	if cmd, ok := m.global(msg); ok {
		return cmd
	}
	if cmd, ok := m.pane().Update(msg); ok {
		return cmd
	}
	return notice(m.why(msg))
}

// global takes the root's own keys; false for any other.
func (m *Model) global(msg tea.KeyMsg) (tea.Cmd, bool) {
	g := m.keys
	switch {
	case key.Matches(msg, g.Back):
		return m.escape(msg), true
	case key.Matches(msg, g.Open):
		return m.open(), true
	case key.Matches(msg, g.Copy):
		return m.copySelected(), true
	case key.Matches(msg, g.Send):
		return m.startPoint(), true
	case key.Matches(msg, g.Unsend):
		return m.point.clear(), true
	case key.Matches(msg, g.Doctor):
		return m.openDoctor(), true
	case key.Matches(msg, g.Quit):
		return tea.Quit, true
	case key.Matches(msg, g.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.layout()
	case key.Matches(msg, g.NextPane):
		m.panes.show((m.panes.active + 1) % paneCount)
	case key.Matches(msg, g.PrevPane):
		m.panes.show((m.panes.active + paneCount - 1) % paneCount)
	case key.Matches(msg, g.Panes):
		m.panes.show(int(msg.String()[0] - '1'))
	case key.Matches(msg, m.panes.overrides.keys.Revoke) && m.replaying():
		// A replay under way is what x stops first, in every pane.
		return m.stopReplays(), true
	case key.Matches(msg, m.panes.overrides.keys.Revoke) && m.panes.active != paneOverrides:
		// x anywhere else takes back the newest AI override: the veto is
		// one key whatever the human is looking at.
		return m.panes.overrides.revokeNewest(), true
	case key.Matches(msg, g.Filter):
		return m.filter.open(m.pane().Filter()), true
	case key.Matches(msg, g.Pilot):
		return m.togglePilot(), true
	case key.Matches(msg, g.Tabs):
		return m.cycleTab(), true
	case key.Matches(msg, g.FreeTab):
		return m.freeTab(), true
	default:
		return nil, false
	}
	return nil, true
}

// why says what a key that does nothing in this pane is for.
func (m *Model) why(msg tea.KeyMsg) string {
	ov, au, st := m.panes.overrides.keys, m.panes.audit.auditKeys, m.panes.console.keys
	switch {
	case key.Matches(msg, ov.RevokeAll, ov.Allow):
		return fmt.Sprintf("%s %s in the Overrides pane: press %d", msg.String(), firstHelp(msg, ov.RevokeAll, ov.Allow), paneOverrides+1)
	case key.Matches(msg, au.AllServers):
		return fmt.Sprintf("A shows every server's lines in the Audit pane: press %d", paneAudit+1)
	case key.Matches(msg, st.Pause, st.Clear):
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

// escape closes what is open: the full help, then a view of the pane's own
// (the Network pane's page load), then a kept filter.
func (m *Model) escape(msg tea.KeyMsg) tea.Cmd {
	if m.help.ShowAll {
		m.help.ShowAll = false
		m.layout()
		return nil
	}
	if cmd, ok := m.pane().Update(msg); ok {
		return cmd
	}
	if m.pane().Filter() != "" {
		_ = m.pane().SetFilter("") // the empty filter always parses
		m.filter.input.Reset()
		return notice("dropped the filter")
	}
	return notice("nothing to close")
}

// keyBar is the help bar for what has the focus: the filter's keys while
// it is typed, the detail's over a pane, else the active pane's with the
// root's. The `?` view lists every key of every component, in groups.
func (m *Model) keyBar() keyBar {
	if m.filter.on {
		return keyBar{m.filter.ShortHelp(), [][]key.Binding{m.filter.ShortHelp()}}
	}
	g := m.keys
	full := m.fullHelp()
	if m.detail.open {
		return keyBar{append(m.detail.ShortHelp(), g.Copy, g.Help, g.Quit), full}
	}
	// t and F are listed when they can do something.
	g.Tabs.SetEnabled(m.health != nil && len(m.health.AITabs) > 0)
	_, owned := ownerOf(m.health, m.panes.shownTab)
	g.FreeTab.SetEnabled(owned)
	short := append(m.pane().ShortHelp(g), g.Pilot, g.NextPane, g.Help, g.Quit)
	return keyBar{slices.DeleteFunc(short, func(b key.Binding) bool { return !b.Enabled() }), full}
}

// fullHelp is every key, in groups.
func (m *Model) fullHelp() [][]key.Binding {
	g, ov, au, net := m.keys, m.panes.overrides.keys, m.panes.audit.auditKeys, m.panes.network.netKeys
	paused := false
	if p, ok := m.pane().(interface{ Paused() bool }); ok {
		paused = p.Paused()
	}
	st := m.panes.console.keys.forPause(paused)
	return [][]key.Binding{
		{g.NextPane, g.PrevPane, g.Panes, g.Open, g.Back, g.Copy, g.Send},
		st.bindings(),
		{ov.Revoke, ov.RevokeAll, ov.Allow, g.Pilot, m.approval.keys.Mode, au.AllServers, au.AuditReads},
		{st.Pause, st.Clear, g.Filter, g.Doctor, m.recovery.keys.Recover, g.Help, g.Quit},
		{net.Sort, net.PageLoad, g.Unsend, g.Tabs, g.FreeTab},
	}
}
