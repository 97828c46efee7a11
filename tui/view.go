package tui

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
)

// Layout: three header lines, the activity line, the tab bar, the pane,
// the status line and the help bar.
const chromeLines = 6

// DefaultPort is the port the extension looks for the server on unless
// told another.
const DefaultPort = 7890

// hintAfter is how long the dashboard waits for the extension before it
// says how to point it at a server on another port.
const hintAfter = 10 * time.Second

func (m *Model) layout() {
	m.help.Width = m.width
	m.input.Width = max(10, m.width-len(m.input.Prompt)-1)
	h := m.bodyHeight()
	for _, p := range m.panes {
		p.SetSize(m.width, h)
	}
	if m.detail != nil {
		m.detail.resize(m.width, h)
	}
}

// bodyHeight is the lines left for the pane.
func (m *Model) bodyHeight() int {
	return max(2, m.height-chromeLines-lipgloss.Height(m.helpView()))
}

func (m *Model) helpKeys() paneHelp {
	paused := false
	if p, ok := m.panes[m.active].(interface{ Paused() bool }); ok {
		paused = p.Paused()
	}
	h := paneHelp{k: m.keys, veto: m.active == paneOverrides, audit: m.active == paneAudit, filtering: m.filtering,
		detail: m.detail != nil, paused: paused, tabs: m.health != nil && len(m.health.AITabs) > 0}
	_, h.free = ownerOf(m.health, m.shownTab)
	return h
}

// helpView is the key bar. Its last two keys, help and quit, are kept
// whole on any width: the pane's keys before them give up room first.
func (m *Model) helpView() string {
	h := m.helpKeys()
	if m.help.ShowAll {
		m.help.Width = 0 // measured whole
		full := m.help.View(h)
		m.help.Width = m.width
		if groups := h.FullHelp(); lipgloss.Width(full) > m.width && len(groups) > 2 {
			// Too wide for its columns side by side: two rows of them.
			half := (len(groups) + 1) / 2
			return m.help.FullHelpView(groups[:half]) + "\n" + m.help.FullHelpView(groups[half:])
		}
		return m.help.View(h)
	}
	keys := h.ShortHelp()
	if len(keys) < 3 {
		m.help.Width = m.width
		return m.help.ShortHelpView(keys)
	}
	m.help.Width = 0 // bubbles' own cut keeps a key it has no room for
	defer func() { m.help.Width = m.width }()
	last := m.help.ShortHelpView(keys[len(keys)-2:])
	sep := m.help.Styles.ShortSeparator.Render(m.help.ShortSeparator)
	room := m.width - lipgloss.Width(last) - lipgloss.Width(sep)
	rest := keys[:len(keys)-2]
	for n := len(rest); n > 0; n-- {
		first := m.help.ShortHelpView(rest[:n])
		if n < len(rest) {
			first += " …"
		}
		if lipgloss.Width(first) <= room {
			return first + sep + last
		}
	}
	return last
}

// View draws the dashboard.
func (m *Model) View() string {
	body := m.panes[m.active].View()
	if _, ok := m.asking.waiting(); ok {
		// Nothing else is shown while an action waits: it cannot be missed.
		body = m.askView(lipgloss.Height(body))
	} else if m.recoverPrompt() {
		body = m.recoverView(lipgloss.Height(body))
	} else if _, ok := m.trust.waiting(); ok {
		body = m.trustView(lipgloss.Height(body))
	}
	if m.detail != nil {
		body = m.detail.view()
	}
	if m.copyMenu != nil {
		body = copyMenuView(m.copyMenu, m.copyTitle, m.width, lipgloss.Height(body))
	}
	status := m.tabStatus()
	hd := header{conn: m.conn, health: m.health, pilot: m.pilot, aiNote: m.aiNote(), problems: m.doc.problems(),
		notice: m.lostNotice(), segments: m.headerSegments()}
	frame := strings.Join([]string{
		headerView(hd, m.width),
		activityView(&m.traffic, m.reads, m.now(), m.width),
		tabsView(m.titles(), m.active, status, m.width),
		body,
		m.statusLine(),
		m.helpView(),
	}, "\n")
	return lipgloss.NewStyle().MaxWidth(m.width).MaxHeight(m.height).Render(frame)
}

// tabStatus is the state on the right of the tab bar: the pane's, or the
// open detail's.
func (m *Model) tabStatus() string {
	if m.detail != nil {
		return m.detail.status()
	}
	return m.panes[m.active].Status()
}

func (m *Model) statusLine() string {
	switch {
	case m.filtering && m.filterErr != nil:
		short := m.input // as wide as what is typed, the error after it
		short.Width = lipgloss.Width(m.input.Value()) + 1
		in := short.View()
		return in + styleErr.Render(fit("  ✖ "+clean(m.filterErr.Error()), max(0, m.width-lipgloss.Width(in))))
	case m.filtering:
		return m.input.View()
	case m.pt.open:
		return m.pointView()
	case m.note != "" && m.now().Sub(m.noteAt) < noteFor:
		if m.noteErr {
			return styleErr.Render(fit("✖ "+clean(m.note), m.width))
		}
		return styleInfo.Render(fit("› "+clean(m.note), m.width))
	case m.conn.Phase == Connecting:
		return styleWarn.Render(fit("connecting to "+m.conn.Addr+"…", m.width))
	case m.portHint() != "":
		return styleWarn.Render(m.portHint())
	}
	return ""
}

// portHint says how to point the extension at this server, when it has
// not connected within hintAfter and the server is not on the port the
// extension looks on by default.
func (m *Model) portHint() string {
	h := m.health
	if h == nil || h.Extension.Connected || h.Extension.LastSeenMS > 0 || m.since.IsZero() || m.now().Sub(m.since) < hintAfter {
		return ""
	}
	_, p, err := net.SplitHostPort(m.conn.Addr)
	port, _ := strconv.Atoi(p)
	if err != nil || port == DefaultPort {
		return ""
	}
	long := fmt.Sprintf("no extension yet: it looks on port %d. Run gasoline extension DIR --port %d and load DIR, or set http://127.0.0.1:%d in its options",
		DefaultPort, port, port)
	if len(long) <= m.width {
		return long
	}
	return fit(fmt.Sprintf("extension? gasoline extension DIR --port %d, or its options: 127.0.0.1:%d", port, port), m.width)
}
