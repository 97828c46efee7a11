package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"

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
	// Out is the terminal, for copies over OSC 52; InTmux wraps them for
	// tmux's passthrough.
	Out    io.Writer
	InTmux bool
	// Doctor runs gasoline doctor's checks; the header shows its
	// problems, live. Nil runs none.
	Doctor func(context.Context) doctor.Report
}

// Model is the dashboard's root model. It holds the components and the
// state they share (the server's health, the connection, the clock),
// offers each key to the pop-up in front and then the active pane
// (keypress.go), hands outside messages to the components they concern,
// and composes their views. Each component owns its keys, its help, its
// Update and its View.
type Model struct {
	*common
	keys globalKeys
	help help.Model
	feed *feed

	width, height int
	conn          ConnState
	health        *Health
	pilot         *Pilot

	panes   paneSet
	traffic traffic // requests and errors per second, for the header

	// The pop-ups, in front of the panes (keypress.go's popups).
	filter   filterBar
	point    pointer
	copy     copyMenu
	approval asking
	recovery recovering
	origins  trusting
	detail   detail

	note   statusNote
	lost   passedOver // events the dashboard passed over under load
	bodies bodyStore
	doc    doctorState
	// since is when the dashboard first reached the server, for the hint
	// to point the extension at a non-default port.
	since time.Time
	// fatal ends the dashboard: the server could not be hosted or found.
	fatal error
}

// common is what the components share, as soft-serve's share theirs:
// the server's API and the clock. One value, so that a client swapped in
// (a test's) reaches every component that calls the server.
type common struct {
	client *Client
	now    func() time.Time
}

// said is what a component has to say on the status line after a
// message; the zero value says nothing.
type said struct {
	text string
	err  bool
}

// New returns a dashboard model. Run wires it to a live server; tests may
// feed it messages directly.
func New(cfg Config) *Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &common{client: cfg.Client, now: cfg.Now}
	m := &Model{common: c, keys: newGlobalKeys(), help: help.New(), conn: cfg.Conn,
		panes: newPaneSet(c), bodies: newBodyStore(),
		filter: newFilterBar(), point: newPointer(c), copy: newCopyMenu(cfg.Out, cfg.InTmux),
		approval: newAsking(c), recovery: newRecovering(c), origins: newTrusting(c), detail: newDetailView(),
		doc: doctorState{run: cfg.Doctor}}
	m.panes.network.more = m.bodies.text
	for _, p := range m.panes.tabPanes() {
		p.mark = m.markAgent
	}
	// The first frame is drawn before the terminal's size is known: it
	// shows the dashboard connecting, at the smallest size it is made for.
	m.width, m.height = 80, 24
	m.layout()
	return m
}

// pane is the active pane.
func (m *Model) pane() pane { return m.panes.current() }

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
		lostAt := m.lost.at
		// A page that went away is taken first: its new document's
		// entries may be in the same batch, after it by time.
		for _, sub := range msg {
			if p, ok := sub.(PageLeftMsg); ok {
				m.panes.pageLeft(wire.PageLeft(p))
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
		if m.lost.at != lostAt {
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
			m.panes.overrides.set(*msg.overrides)
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
	m.pane().sync()
	return m, cmd
}

// apply takes in one outside event.
func (m *Model) apply(msg tea.Msg) {
	for _, s := range []said{m.origins.apply(msg), m.point.apply(msg), m.panes.audit.apply(msg)} {
		if s.text != "" {
			m.setNote(s.text, s.err)
		}
	}
	switch msg := msg.(type) {
	case ConnMsg:
		m.conn = ConnState(msg)
		if m.since.IsZero() && (m.conn.Phase == Hosting || m.conn.Phase == Attached) {
			m.since = m.now()
		}
		m.panes.audit.setServer(m.conn.Addr)
	case recovered:
		if msg.err != nil {
			m.setNote(msg.err.Error(), true)
			return
		}
		m.setHealth(msg.health)
		m.setNote(msg.note, false)
	case FatalMsg:
		m.fatal = msg.Err
	case StatusMsg:
		h := Health(msg)
		m.setHealth(h)
		if h.Pilot != nil {
			m.pilot = h.Pilot
		}
		if h.Approvals != nil {
			m.setApprovals(*h.Approvals)
		}
	case ApprovalsMsg:
		m.setApprovals(Approvals(msg))
	case OverridesMsg:
		m.panes.overrides.set(Overrides(msg))
	case PilotMsg:
		p := Pilot(msg)
		m.pilot = &p
	case EntriesMsg:
		m.traffic.count(msg, m.now())
		m.addEntries(msg)
	case PageLoadMsg:
		m.panes.network.addLoad(perf.Sample(msg))
	case StreamedMsg:
		m.panes.console.add([]row{streamedRow(msg, m.now())})
	case DroppedMsg:
		m.passedOver(msg.Count) // the server's, for a dashboard that fell behind
	case LogMsg:
		m.setNote(strings.TrimPrefix(strings.TrimSpace(string(msg)), "gasoline: "), false)
	case ErrMsg:
		m.setNote(msg.Err.Error(), true)
	}
}

func (m *Model) addEntries(e EntriesMsg) {
	m.panes.addEntries(e)
	m.bodies.add(e.Bodies)
	if len(e.Bodies) > 0 && len(m.panes.network.q.words) > 0 {
		// A body comes after its request's row: a filter by text matches
		// the rows again.
		m.panes.network.dirty = true
	}
	m.passedOver(e.Skipped)
}

// statusNote is the status line's note: what a key or an answer said,
// shown for noteFor.
type statusNote struct {
	said
	at time.Time
}

func (m *Model) setNote(s string, isErr bool) {
	m.note = statusNote{said{s, isErr}, m.now()}
}

// setHealth takes the server's health; the decisions prompt follows it.
func (m *Model) setHealth(h Health) {
	m.health = &h
	m.recovery.see(m.health)
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
