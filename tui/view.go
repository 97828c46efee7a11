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
	m.filter.setWidth(m.width)
	h := m.bodyHeight()
	m.panes.setSize(m.width, h)
	if m.detail.open {
		m.detail.resize(m.width, h)
	}
}

// bodyHeight is the lines left for the pane.
func (m *Model) bodyHeight() int {
	return max(2, m.height-chromeLines-lipgloss.Height(m.helpView()))
}

// helpView is the key bar. Its last two keys, help and quit, are kept
// whole on any width: the pane's keys before them give up room first.
func (m *Model) helpView() string {
	h := m.keyBar()
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
	body := m.pane().View()
	h := lipgloss.Height(body)
	if _, ok := m.approval.waiting(); ok {
		// Nothing else is shown while an action waits: it cannot be missed.
		body = m.approval.View(m.width, h)
	} else if m.recovery.shown() {
		body = m.recovery.View(m.width, h)
	} else if _, ok := m.origins.waiting(); ok {
		body = m.origins.View(m.width, h)
	}
	if m.detail.open {
		body = m.detail.View()
	}
	if m.copy.isOpen() {
		body = m.copy.View(m.width, lipgloss.Height(body))
	}
	status := m.tabStatus()
	hd := header{conn: m.conn, health: m.health, pilot: m.pilot, aiNote: m.aiNote(), problems: m.doc.problems(),
		notice: m.lostNotice(), segments: m.headerSegments()}
	frame := strings.Join([]string{
		headerView(hd, m.width),
		activityView(&m.traffic, m.panes.audit.reads, m.now(), m.width),
		tabsView(m.panes.titles(), m.panes.active, status, m.width),
		body,
		m.statusLine(),
		m.helpView(),
	}, "\n")
	return lipgloss.NewStyle().MaxWidth(m.width).MaxHeight(m.height).Render(frame)
}

// tabStatus is the state on the right of the tab bar: the pane's, or the
// open detail's.
func (m *Model) tabStatus() string {
	if m.detail.open {
		return m.detail.status()
	}
	return m.pane().Status()
}

func (m *Model) statusLine() string {
	switch {
	case m.filter.on:
		return m.filter.View(m.width)
	case m.point.on:
		return m.point.View()
	case m.note.text != "" && m.now().Sub(m.note.at) < noteFor:
		if m.note.err {
			return styleErr.Render(fit("✖ "+clean(m.note.text), m.width))
		}
		return styleInfo.Render(fit("› "+clean(m.note.text), m.width))
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
