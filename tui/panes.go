package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// pane is one tab of the dashboard: a small component with its own keys.
type pane interface {
	Title() string
	// Update handles a key the root model did not take, with the pane's
	// own keys; handled is false when the key does nothing in this pane.
	Update(msg tea.KeyMsg) (cmd tea.Cmd, handled bool)
	// ShortHelp is the pane's key bar: its own keys and those of the
	// root's (g) that act on it; the root adds the keys every bar ends with.
	ShortHelp(g globalKeys) []key.Binding
	// Pick is the selected row: what it shows, whole, for the detail view,
	// and its line as the pane draws it, for copying.
	Pick() (src any, line string, ok bool)
	// Scroll moves the selection by n rows (the mouse wheel).
	Scroll(n int)
	SetSize(w, h int)
	// SetFilter applies a filter (filter.go); one that does not parse
	// changes nothing and says what is wrong.
	SetFilter(s string) error
	Filter() string
	Clear()
	// Status is the pane's state for the right of the tab bar.
	Status() string
	View() string
	sync()
}

// The panes, in tab order; keys 1–6 pick them.
const (
	paneConsole = iota
	paneNetwork
	paneWS
	paneActions
	paneOverrides
	paneAudit
	paneCount
)

// paneSet is the dashboard's tabs: the six panes in tab order, the active
// one, the browser tab t shows them (0: every tab), and where the Console
// and Network panes mark the page navigating.
type paneSet struct {
	console   *streamPane
	network   *netPane
	ws        *wsPane
	actions   *streamPane
	overrides *overridesPane
	audit     *auditPane
	list      [paneCount]pane
	active    int
	shownTab  int
	// consoleNav and networkNav put a line where the page navigated.
	consoleNav, networkNav navMarks
}

func newPaneSet(c *common) paneSet {
	ps := paneSet{console: newConsolePane(), network: newNetworkPane(), ws: newWSPane(), actions: newActionsPane(),
		overrides: newOverridesPane(c), audit: newAuditPane(c), consoleNav: navMarks{}, networkNav: navMarks{}}
	ps.list = [paneCount]pane{ps.console, ps.network, ps.ws, ps.actions, ps.overrides, ps.audit}
	return ps
}

func (ps *paneSet) current() pane { return ps.list[ps.active] }

// tabPanes are the panes whose rows come from a tab.
func (ps *paneSet) tabPanes() []*streamPane {
	return []*streamPane{ps.console, ps.network.streamPane, ps.ws.streamPane, ps.actions}
}

// show makes pane i the active one; the Overrides pane opens on the
// newest AI override.
func (ps *paneSet) show(i int) {
	if i != ps.active && i == paneOverrides {
		ps.overrides.focusNewest()
	}
	ps.active = i
}

func (ps *paneSet) setSize(w, h int) {
	for _, p := range ps.list {
		p.SetSize(w, h)
	}
}

func (ps *paneSet) titles() []string {
	t := make([]string, paneCount)
	for i, p := range ps.list {
		t[i] = p.Title()
	}
	return t
}

// pageLeft takes a page that went away: the next entry of its tab is
// from a new document.
func (ps *paneSet) pageLeft(p wire.PageLeft) {
	ps.consoleNav.leave(p)
	ps.networkNav.leave(p)
}

// addEntries puts captured entries in their panes, a line before the
// first entry of a new page.
func (ps *paneSet) addEntries(e EntriesMsg) {
	if len(e.Logs) > 0 {
		rows := make([]row, 0, len(e.Logs))
		for _, l := range e.Logs {
			if r, ok := ps.consoleNav.next(l.TS, l.TabID, l.Page); ok {
				rows = append(rows, r)
			}
			rows = append(rows, consoleRow(l))
		}
		ps.console.add(rows)
	}
	if len(e.Network) > 0 {
		rows := make([]row, 0, len(e.Network))
		for _, n := range e.Network {
			if r, ok := ps.networkNav.next(n.TS, n.TabID, n.Page); ok {
				rows = append(rows, r)
			}
			rows = append(rows, networkRow(n))
		}
		ps.network.add(rows)
	}
	if len(e.WS) > 0 {
		ps.ws.addEvents(e.WS)
	}
	if len(e.Actions) > 0 {
		rows := make([]row, len(e.Actions))
		for i, a := range e.Actions {
			rows[i] = actionRow(a)
		}
		ps.actions.add(rows)
	}
}

func newConsolePane() *streamPane {
	return newStreamPane("Console", fmt.Sprintf(consoleFormat, "TIME", " ", "LEVEL", "MESSAGE"),
		"No console output yet. Errors and warnings appear here as the page logs them.")
}

func newActionsPane() *streamPane {
	return newStreamPane("Actions", fmt.Sprintf(actionFormat, "TIME", "ACTION", "TARGET"),
		"No user actions yet. Clicks, typing, submits and navigations in the page appear here.")
}

// Pick is the selected row.
func (p *streamPane) Pick() (any, string, bool) {
	r, ok := p.Selected()
	return r.src, r.text, ok
}

// Scroll moves the selection by n rows.
func (p *streamPane) Scroll(n int) { p.sync(); p.move(n) }

// maxPinned bounds the human's audit lines kept past the pane's length.
const maxPinned = 200

// humanLine is one of the human's own audit lines: a flood of others never
// pushes it out of the dashboard.
func humanLine(l audit.Line) bool { return l.Parsed && l.Event.Source == "human" }

// maxSockets bounds the connections the WebSocket pane remembers.
const maxSockets = 64

// wsPane is the WebSocket stream with a line of the connections above it.
type wsPane struct {
	*streamPane
	socks []*socket // oldest first
}

// socket is one connection as the store tracks it (capture's track): open
// when first seen, then as its last open, close or error says. A message
// never opens it again: a page that left has its sockets closed at once,
// while its last messages are still on their way.
type socket struct {
	id, url string
	open    bool
	msgs    int
}

func newWSPane() *wsPane {
	p := &wsPane{streamPane: newStreamPane("WebSocket", fmt.Sprintf(wsFormat, "TIME", "EVENT", "SOCKET", "DATA"),
		"No WebSocket traffic yet. Connections appear here; messages too when ws_mode is \"messages\".")}
	p.order = inTimeOrder
	return p
}

func (p *wsPane) addEvents(es []capture.WSEvent) {
	rows := make([]row, len(es))
	for i, e := range es {
		s := p.socket(e.ID)
		rows[i] = wsRow(e, s.url)
		if e.URL != "" {
			s.url = e.URL
		}
		switch e.Event {
		case "open":
			s.open = true
		case "close", "error":
			s.open = false
		case "message":
			s.msgs++
		}
	}
	p.add(rows)
}

func (p *wsPane) socket(id string) *socket {
	for _, s := range p.socks {
		if s.id == id {
			return s
		}
	}
	s := &socket{id: id, open: true}
	p.socks = append(p.socks, s)
	if len(p.socks) > maxSockets {
		p.socks = p.socks[1:]
	}
	return s
}

// SetSize leaves a line for the connections.
func (p *wsPane) SetSize(w, h int) { p.streamPane.SetSize(w, h-1) }

// Clear forgets closed connections along with the rows.
func (p *wsPane) Clear() {
	p.streamPane.Clear()
	open := p.socks[:0]
	for _, s := range p.socks {
		if s.open {
			open = append(open, s)
		}
	}
	p.socks = open
}

// View puts the open connections above the stream.
func (p *wsPane) View() string {
	var open []string
	for _, s := range p.socks {
		if s.open {
			open = append(open, fmt.Sprintf("%s %s (%d msgs)", clean(s.id), clean(s.url), s.msgs))
		}
	}
	head := styleDim.Render("no open connections")
	if len(open) > 0 {
		head = styleOK.Render(fit(fmt.Sprintf("%d open: %s", len(open), strings.Join(open, " · ")), p.width))
	}
	return head + "\n" + p.streamPane.View()
}
