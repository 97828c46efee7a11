package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/audit"
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
