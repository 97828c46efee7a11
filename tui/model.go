package tui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// noteFor is how long a note stays on the status line.
const noteFor = 10 * time.Second

// Config is what a Model needs.
type Config struct {
	// Client reaches the server's API for the veto and the pilot.
	Client *Client
	// Conn is how the dashboard reaches the server at start.
	Conn ConnState
	// Now is the clock for ages; time.Now when nil.
	Now func() time.Time
	// Keys are the key bindings; DefaultKeyMap when zero.
	Keys *KeyMap
}

// Model is the dashboard's root model. It draws the header, routes keys to
// the active pane (after its own global keys) and outside messages to the
// panes they concern. Panes are small components with their own keys.
type Model struct {
	keys   KeyMap
	help   help.Model
	input  textinput.Model
	client *Client
	feed   *feed
	now    func() time.Time

	width, height int
	conn          ConnState
	health        *Health
	pilot         *Pilot

	console   *streamPane
	network   *streamPane
	ws        *wsPane
	overrides *overridesPane
	audit     *streamPane
	panes     [paneCount]pane
	active    int
	auditPath string
	auditAll  bool // the Audit pane shows every server's lines
	asking    asking
	trust     trusting // extension origins waiting for the human (origins.go)

	filtering bool
	note      string
	noteErr   bool
	noteAt    time.Time
	lost      int
}

// New returns a dashboard model. Run wires it to a live server; tests may
// feed it messages directly.
func New(cfg Config) *Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	keys := DefaultKeyMap()
	if cfg.Keys != nil {
		keys = *cfg.Keys
	}
	in := textinput.New()
	in.Prompt = "/ filter: "
	in.Placeholder = "text to match, enter keeps, esc drops"
	// A steady cursor: a blinking one would redraw the screen twice a
	// second for nothing.
	in.Cursor.SetMode(cursor.CursorStatic)
	m := &Model{keys: keys, help: help.New(), input: in, client: cfg.Client, now: cfg.Now, conn: cfg.Conn, asking: newAsking(),
		console: newConsolePane(), network: newNetworkPane(), ws: newWSPane(),
		overrides: newOverridesPane(cfg.Client, cfg.Now), audit: newAuditPane()}
	m.panes = [paneCount]pane{m.console, m.network, m.ws, m.overrides, m.audit}
	return m
}

// Init starts waiting for outside events.
func (m *Model) Init() tea.Cmd {
	if m.feed == nil {
		return nil
	}
	return m.feed.Next()
}

// actionMsg is the answer to a key that called the server.
type actionMsg struct {
	note      string
	err       error
	overrides *Overrides
	pilot     *Pilot
}

// noteMsg puts a line on the status line.
type noteMsg string

func notice(s string) tea.Cmd { return func() tea.Msg { return noteMsg(s) } }

// Update applies one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
	case tea.KeyMsg:
		cmd = m.key(msg)
	case batchMsg:
		for _, sub := range msg {
			m.apply(sub)
		}
		if m.feed != nil {
			cmd = m.feed.Next()
		}
	case actionMsg:
		if msg.overrides != nil && msg.err == nil {
			m.overrides.set(*msg.overrides)
		}
		if msg.pilot != nil && msg.err == nil {
			m.pilot = msg.pilot
		}
		if msg.err != nil {
			m.setNote(msg.err.Error(), true)
		} else {
			m.setNote(msg.note, false)
		}
	case noteMsg:
		m.setNote(string(msg), false)
	case approvalAnswered:
		if msg.err != nil {
			m.setNote(msg.err.Error(), true)
		} else {
			m.asking.set(msg.state)
			m.setNote(msg.note, false)
		}
	default:
		m.apply(msg)
	}
	m.panes[m.active].sync()
	return m, cmd
}

// apply takes in one outside event.
func (m *Model) apply(msg tea.Msg) {
	m.applyTrust(msg)
	switch msg := msg.(type) {
	case ConnMsg:
		m.conn = ConnState(msg)
		m.scopeAudit()
	case StatusMsg:
		h := Health(msg)
		m.health = &h
		if h.Pilot != nil {
			m.pilot = h.Pilot
		}
		if h.Approvals != nil {
			m.asking.set(*h.Approvals)
		}
	case ApprovalsMsg:
		m.asking.set(Approvals(msg))
	case OverridesMsg:
		m.overrides.set(Overrides(msg))
	case PilotMsg:
		p := Pilot(msg)
		m.pilot = &p
	case EntriesMsg:
		m.addEntries(msg)
	case AuditMsg:
		if msg.Path != m.auditPath {
			m.auditPath = msg.Path
			m.scopeAudit()
			m.audit.empty = "No audit events yet in " + msg.Path + ". Every change the AI makes and every veto of yours appears here."
		}
		rows := make([]row, len(msg.Lines))
		for i, l := range msg.Lines {
			rows[i] = auditRow(l)
		}
		m.audit.add(rows)
	case StreamedMsg:
		m.console.add([]row{streamedRow(msg, m.now())})
	case DroppedMsg:
		m.lost += msg.Count
		m.setNote(fmt.Sprintf("the server dropped %d events: the dashboard fell behind (%d in all)", msg.Count, m.lost), true)
	case LogMsg:
		m.setNote(strings.TrimPrefix(strings.TrimSpace(string(msg)), "gasoline: "), false)
	case ErrMsg:
		m.setNote(msg.Err.Error(), true)
	}
}

func (m *Model) addEntries(e EntriesMsg) {
	if len(e.Logs) > 0 {
		rows := make([]row, len(e.Logs))
		for i, l := range e.Logs {
			rows[i] = consoleRow(l)
		}
		m.console.add(rows)
	}
	if len(e.Network) > 0 {
		rows := make([]row, len(e.Network))
		for i, n := range e.Network {
			rows[i] = networkRow(n)
		}
		m.network.add(rows)
	}
	if len(e.WS) > 0 {
		m.ws.addEvents(e.WS)
	}
	m.lost += e.Skipped
}

func (m *Model) setNote(s string, isErr bool) {
	m.note, m.noteErr, m.noteAt = s, isErr, m.now()
}

// key handles the global keys and hands the rest to the active pane.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	if m.filtering {
		return m.filterKey(msg)
	}
	if cmd, ok := m.askKey(msg); ok {
		return cmd
	}
	if cmd, ok := m.trustKey(msg); ok {
		return cmd
	}
	switch {
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
	case key.Matches(msg, m.keys.AllServers) && m.active == paneAudit:
		m.auditAll = !m.auditAll
		m.scopeAudit()
	default:
		return m.panes[m.active].Update(msg, m.keys)
	}
	return nil
}

// filterKey edits the active pane's filter, applying it as it is typed.
func (m *Model) filterKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Apply):
		m.filtering = false
		m.input.Blur()
	case key.Matches(msg, m.keys.Cancel):
		m.filtering = false
		m.input.Blur()
		m.input.Reset()
		m.panes[m.active].SetFilter("")
	default:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		m.panes[m.active].SetFilter(m.input.Value())
		return cmd
	}
	m.layout()
	return nil
}

// show makes pane i the active one; the Overrides pane opens on the
// newest AI override.
func (m *Model) show(i int) {
	if i != m.active && i == paneOverrides {
		m.overrides.focusNewest()
	}
	m.active = i
}

// scopeAudit shows this server's audit lines (its port's), or every
// server's after A.
func (m *Model) scopeAudit() {
	port := 0
	if _, p, err := net.SplitHostPort(m.conn.Addr); err == nil && !m.auditAll {
		port, _ = strconv.Atoi(p)
	}
	m.audit.ShowPort(port)
	m.audit.note = "every server (A: this one) · " + m.auditPath
	if port != 0 {
		m.audit.note = fmt.Sprintf("port %d only (A: all) · %s", port, m.auditPath)
	}
}

// togglePilot blocks the Web Pilot for the AI, or lifts the block.
func (m *Model) togglePilot() tea.Cmd {
	block := m.pilot == nil || !m.pilot.BlockedByUser
	c := m.client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		p, err := c.BlockPilot(ctx, block)
		if errors.Is(err, ErrNoPilot) {
			return actionMsg{err: fmt.Errorf("%w (the server predates it)", err)}
		}
		note := "unblocked the Web Pilot: the AI may drive the page when the popup allows it"
		if block {
			note = "blocked the Web Pilot: the AI cannot drive the page until you press P again"
		}
		return actionMsg{note: note, err: err, pilot: &p}
	}
}
