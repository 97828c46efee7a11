package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// Layout: three header lines, the tab bar, the pane, the status line and
// the help bar.
const chromeLines = 5

func (m *Model) layout() {
	m.help.Width = m.width
	m.input.Width = max(10, m.width-len(m.input.Prompt)-1)
	h := m.height - chromeLines - lipgloss.Height(m.help.View(m.helpKeys()))
	for _, p := range m.panes {
		p.SetSize(m.width, max(2, h))
	}
}

func (m *Model) helpKeys() paneHelp {
	return paneHelp{k: m.keys, veto: m.active == paneOverrides, audit: m.active == paneAudit, filtering: m.filtering}
}

// View draws the dashboard.
func (m *Model) View() string {
	if m.width == 0 {
		return "starting the Gasoline dashboard…"
	}
	titles := make([]string, paneCount)
	for i, p := range m.panes {
		titles[i] = p.Title()
	}
	status := m.panes[m.active].Status()
	body := m.panes[m.active].View()
	if _, ok := m.asking.waiting(); ok {
		// Nothing else is shown while an action waits: it cannot be missed.
		body = m.askView(lipgloss.Height(body))
	} else if _, ok := m.trust.waiting(); ok {
		body = m.trustView(lipgloss.Height(body))
	}
	frame := strings.Join([]string{
		headerView(m.conn, m.health, m.pilot, m.overrides.headline(), m.width),
		tabsView(titles, m.active, status, m.width),
		body,
		m.statusLine(),
		m.help.View(m.helpKeys()),
	}, "\n")
	return lipgloss.NewStyle().MaxWidth(m.width).MaxHeight(m.height).Render(frame)
}

func (m *Model) statusLine() string {
	switch {
	case m.filtering:
		return m.input.View()
	case m.note != "" && m.now().Sub(m.noteAt) < noteFor:
		if m.noteErr {
			return styleErr.Render(fit("✖ "+clean(m.note), m.width))
		}
		return styleInfo.Render(fit("› "+clean(m.note), m.width))
	case m.lost > 0:
		return styleWarn.Render(fit(fmt.Sprintf("%d events passed over under load; the panes keep the newest %d", m.lost, PaneLines), m.width))
	}
	return ""
}
