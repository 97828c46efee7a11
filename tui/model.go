package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/doctor"
	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/server/wire"
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
	// Out is the terminal, for copies over OSC 52; InTmux wraps them for
	// tmux's passthrough.
	Out    io.Writer
	InTmux bool
	// Doctor runs gasoline doctor's checks; the header shows its
	// problems, live. Nil runs none.
	Doctor func(context.Context) doctor.Report
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
	network   *netPane
	ws        *wsPane
	actions   *streamPane
	overrides *overridesPane
	audit     *streamPane
	panes     [paneCount]pane
	active    int
	auditPath string
	auditAll  bool // the Audit pane shows every server's lines
	asking    asking
	trust     trusting // extension origins waiting for the human (origins.go)
	reads     readsState
	traffic   traffic // requests and errors per second, for the header
	// shownTab is the tab t shows the panes (0: every tab; aitabs.go).
	shownTab int

	// pt is `s`: the note prompt and what was last sent (point.go).
	pt pointing

	// recovery is the prompt when the human's decisions could not be read
	// (decisions.go).
	recovery recovering

	filtering bool
	filterErr error // what is wrong with the filter as typed
	// copyMenu is the open copy menu's choices (copymenu.go), nil when
	// closed; copyTitle names its row.
	copyMenu  []copyItem
	copyTitle string
	note      string
	noteErr   bool
	noteAt    time.Time
	lost      int
	lostAt    time.Time // when the dashboard last passed events over

	// detail is the open detail view, over the active pane.
	detail *detail
	// bodies are the newest request and response payloads, for the
	// detail of a request.
	bodies ring[capture.NetworkBody]
	// bodyCache is bodies as a list, for the filter; nil when stale.
	bodyCache []capture.NetworkBody
	// consoleNav and networkNav put a line where the page navigated.
	consoleNav, networkNav navMarks
	out                    io.Writer
	inTmux                 bool
	doc                    doctorState
	// since is when the dashboard first reached the server, for the hint
	// to point the extension at a non-default port.
	since time.Time
	// fatal ends the dashboard: the server could not be hosted or found.
	fatal error
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
	in.Placeholder = "status>=400 method:POST level:error url:/api type:img or text; enter keeps, esc drops"
	// A steady cursor: a blinking one would redraw the screen twice a
	// second for nothing.
	in.Cursor.SetMode(cursor.CursorStatic)
	m := &Model{keys: keys, help: help.New(), input: in, client: cfg.Client, now: cfg.Now, conn: cfg.Conn, asking: newAsking(),
		console: newConsolePane(), network: newNetworkPane(), ws: newWSPane(), actions: newActionsPane(),
		overrides: newOverridesPane(cfg.Client, cfg.Now), audit: newAuditPane(),
		bodies: newRing[capture.NetworkBody](capture.BodyCap), pt: newPointing(), out: cfg.Out, inTmux: cfg.InTmux, doc: doctorState{run: cfg.Doctor}}
	m.network.more = m.bodyText
	for _, p := range m.tabPanes() {
		p.mark = m.markAgent
	}
	m.consoleNav, m.networkNav = navMarks{}, navMarks{}
	m.panes = [paneCount]pane{m.console, m.network, m.ws, m.actions, m.overrides, m.audit}
	// The first frame is drawn before the terminal's size is known: it
	// shows the dashboard connecting, at the smallest size it is made for.
	m.width, m.height = 80, 24
	m.layout()
	return m
}

// Init starts waiting for outside events and runs the doctor.
func (m *Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if m.feed != nil {
		cmds = append(cmds, m.feed.Next())
	}
	return tea.Batch(append(cmds, m.doc.start())...)
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
	facts := doctorFacts(m.health)
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
	case tea.KeyMsg:
		cmd = m.keyPress(msg)
	case tea.MouseMsg:
		cmd = m.mouse(msg)
	case batchMsg:
		lostAt := m.lostAt
		// A page that went away is taken first: its new document's
		// entries may be in the same batch, after it by time.
		for _, sub := range msg {
			if p, ok := sub.(PageLeftMsg); ok {
				m.consoleNav.leave(wire.PageLeft(p))
				m.networkNav.leave(wire.PageLeft(p))
			}
		}
		for _, sub := range msg {
			m.apply(sub)
		}
		switch {
		case m.fatal != nil:
			cmd = tea.Quit
		case m.feed != nil:
			cmd = m.feed.Next()
		}
		if m.lostAt != lostAt {
			cmd = tea.Batch(cmd, lostExpiry())
		}
	case copiedMsg:
		if msg.err != nil {
			m.setNote("copy: "+msg.err.Error(), true)
		} else {
			m.setNote(fmt.Sprintf("copied %d bytes to the clipboard (OSC 52)", msg.n), false)
		}
	case doctorDue:
		cmd = m.doc.due(msg.gen)
	case DoctorMsg:
		cmd = m.doc.done(doctor.Report(msg))
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
	case tabFreed:
		m.applyFreed(msg)
	case approvalAnswered:
		if msg.err != nil {
			m.setNote(msg.err.Error(), true)
		} else {
			m.setApprovals(msg.state)
			m.setNote(msg.note, false)
		}
	default:
		m.apply(msg)
	}
	if doctorFacts(m.health) != facts {
		cmd = tea.Batch(cmd, m.doc.recheck())
	}
	m.panes[m.active].sync()
	return m, cmd
}

// apply takes in one outside event.
func (m *Model) apply(msg tea.Msg) {
	m.applyTrust(msg)
	m.applyRecover(msg)
	m.applyPoint(msg)
	m.applyReads(msg)
	switch msg := msg.(type) {
	case ConnMsg:
		m.conn = ConnState(msg)
		if m.since.IsZero() && (m.conn.Phase == Hosting || m.conn.Phase == Attached) {
			m.since = m.now()
		}
		m.scopeAudit()
	case FatalMsg:
		m.fatal = msg.Err
	case StatusMsg:
		h := Health(msg)
		m.health = &h
		if h.Pilot != nil {
			m.pilot = h.Pilot
		}
		if h.Approvals != nil {
			m.setApprovals(*h.Approvals)
		}
	case ApprovalsMsg:
		m.setApprovals(Approvals(msg))
	case OverridesMsg:
		m.overrides.set(Overrides(msg))
	case PilotMsg:
		p := Pilot(msg)
		m.pilot = &p
	case EntriesMsg:
		m.addEntries(msg)
	case PageLoadMsg:
		m.network.addLoad(perf.Sample(msg))
	case AuditMsg:
		if msg.Path != m.auditPath {
			m.auditPath = msg.Path
			m.scopeAudit()
			m.audit.empty = "No audit events yet in " + msg.Path + ". Every change the AI makes and every veto of yours appears here."
		}
		rows := make([]row, 0, len(msg.Lines))
		for _, l := range msg.Lines {
			if !m.readShown(l) {
				rows = append(rows, auditRow(l))
			}
		}
		m.audit.add(rows)
	case StreamedMsg:
		m.console.add([]row{streamedRow(msg, m.now())})
	case DroppedMsg:
		m.passedOver(msg.Count) // the server's, for a dashboard that fell behind
	case LogMsg:
		m.setNote(strings.TrimPrefix(strings.TrimSpace(string(msg)), "gasoline: "), false)
	case ErrMsg:
		m.setNote(msg.Err.Error(), true)
	}
}

func (m *Model) addEntries(e EntriesMsg) {
	if len(e.Logs) > 0 {
		rows := make([]row, 0, len(e.Logs))
		for _, l := range e.Logs {
			if r, ok := m.consoleNav.next(l.TS, l.TabID, l.Page); ok {
				rows = append(rows, r)
			}
			rows = append(rows, consoleRow(l))
		}
		m.console.add(rows)
	}
	if len(e.Network) > 0 {
		rows := make([]row, 0, len(e.Network))
		for _, n := range e.Network {
			if r, ok := m.networkNav.next(n.TS, n.TabID, n.Page); ok {
				rows = append(rows, r)
			}
			rows = append(rows, networkRow(n))
		}
		m.network.add(rows)
	}
	if len(e.WS) > 0 {
		m.ws.addEvents(e.WS)
	}
	if len(e.Actions) > 0 {
		rows := make([]row, len(e.Actions))
		for i, a := range e.Actions {
			rows[i] = actionRow(a)
		}
		m.actions.add(rows)
	}
	for _, b := range e.Bodies {
		m.bodies.push(b)
	}
	if len(e.Bodies) > 0 {
		m.bodiesArrived()
	}
	m.passedOver(e.Skipped)
}

func (m *Model) setNote(s string, isErr bool) {
	m.note, m.noteErr, m.noteAt = s, isErr, m.now()
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
