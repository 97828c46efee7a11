package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// PointedMsg is what the human last pointed the AI at and who read it.
type PointedMsg wire.Pointed

// maxNoteChars is the note's bound, as the server keeps it.
const maxNoteChars = 500

// pointing is `s`: the prompt for a note about the selected row, and the
// last thing sent, for the header.
type pointing struct {
	open  bool
	input textinput.Model
	kind  string
	entry json.RawMessage
	what  string // the row's line, for the status note
	sent  *wire.Pointed
}

func newPointing() pointing {
	in := textinput.New()
	in.Prompt = "s note for the AI: "
	in.Placeholder = "optional; enter sends, esc sends without"
	in.CharLimit = maxNoteChars
	in.Cursor.SetMode(cursor.CursorStatic)
	return pointing{input: in}
}

// Point is POST /api/point: the selected row, sent to the AI.
func (c *Client) Point(ctx context.Context, p wire.Point) (wire.Pointed, error) {
	var out wire.Pointed
	return out, c.do(ctx, http.MethodPost, "/api/point", p, &out)
}

// ClearPointed is POST /api/point/clear: the board is taken down, so no
// AI session, new or old, reads what was sent before.
func (c *Client) ClearPointed(ctx context.Context) (int, error) {
	var out struct {
		Entries int `json:"entries"`
	}
	err := c.do(ctx, http.MethodPost, "/api/point/clear", nil, &out)
	return out.Entries, err
}

// clearPointed is S: the board is cleared; the stream's pointed event
// takes the header's "sent to AI" away.
func (m *Model) clearPointed() tea.Cmd {
	if m.client == nil {
		return notice("not connected to a server")
	}
	c := m.client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		n, err := c.ClearPointed(ctx)
		if err != nil {
			return noteMsg("S: " + err.Error())
		}
		return noteMsg(fmt.Sprintf("cleared what was sent to the AI (%d entries): no session reads it now", n))
	}
}

// pointedAnswer is the server's answer to a point.
type pointedAnswer struct {
	state wire.Pointed
	err   error
}

// pointKind is what the server calls the row's entry; "" for a row that
// is not something captured (a notification sent, an override).
func pointKind(src any) (string, any) {
	switch e := src.(type) {
	case capture.LogEntry:
		if e.Level == "error" {
			return "error", e
		}
		return "console", e
	case capture.NetworkEntry:
		return "network", e
	case capture.WSEvent:
		return "websocket", e
	case capture.Action:
		return "action", e
	case audit.Line:
		if e.Parsed {
			return "audit", e.Event
		}
	}
	return "", nil
}

// startPoint opens the note prompt for the selected row of the active
// pane (under the detail view too: it shows that row).
func (m *Model) startPoint() tea.Cmd {
	if _, waiting := m.asking.waiting(); waiting {
		return notice("answer the pilot's request first: y or n")
	}
	src, line, ok := m.panes[m.active].Pick()
	if !ok {
		return notice("nothing to send: no row is selected")
	}
	kind, entry := pointKind(src)
	if kind == "" {
		return notice("s sends a console, network, WebSocket, action or audit row to the AI")
	}
	b, err := json.Marshal(entry)
	if err != nil {
		return notice("s: " + err.Error())
	}
	m.pt.open, m.pt.kind, m.pt.entry, m.pt.what = true, kind, b, line
	m.pt.input.Reset()
	m.pt.input.Width = max(10, m.width-len(m.pt.input.Prompt)-1)
	return m.pt.input.Focus()
}

// pointKey types the note; enter sends with it, esc without.
func (m *Model) pointKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyEnter:
		return m.sendPoint(strings.TrimSpace(m.pt.input.Value()))
	case tea.KeyEsc:
		return m.sendPoint("")
	}
	var cmd tea.Cmd
	m.pt.input, cmd = m.pt.input.Update(msg)
	return cmd
}

func (m *Model) sendPoint(note string) tea.Cmd {
	m.pt.open = false
	m.pt.input.Blur()
	if m.client == nil {
		return notice("not connected to a server")
	}
	c, p := m.client, wire.Point{Kind: m.pt.kind, Entry: m.pt.entry, Note: note}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st, err := c.Point(ctx, p)
		return pointedAnswer{st, err}
	}
}

// applyPoint takes the server's answer and the stream's updates.
func (m *Model) applyPoint(msg tea.Msg) {
	switch msg := msg.(type) {
	case pointedAnswer:
		if msg.err != nil {
			m.setNote("s: "+msg.err.Error(), true)
			return
		}
		m.setPointed(msg.state)
		note := "sent to the AI: every session reads it at the top of its next observe"
		if msg.state.Streamed > 0 {
			note = fmt.Sprintf("sent to the AI: %d streaming session(s) notified; the others read it on their next observe", msg.state.Streamed)
		}
		m.setNote(note, false)
	case PointedMsg:
		m.setPointed(wire.Pointed(msg))
	}
}

// setPointed keeps the newest state: a late answer does not undo a read
// the stream already reported.
func (m *Model) setPointed(st wire.Pointed) {
	old := m.pt.sent
	if old != nil && old.Newest != nil && st.Newest != nil && old.Newest.ID == st.Newest.ID &&
		len(old.Newest.ReadBy)+old.Newest.ReadMore > len(st.Newest.ReadBy)+st.Newest.ReadMore {
		return
	}
	m.pt.sent = &st
}

// pointedPart is the header's field for what the human last sent the AI
// and whether an AI read it yet; nil before anything was sent.
func pointedPart(p *wire.Pointed) part {
	if p == nil || p.Newest == nil {
		return nil
	}
	e := p.Newest
	what := clean(e.Kind + " " + e.Summary)
	if e.Note != "" {
		what += ` "` + clean(e.Note) + `"`
	}
	if n := len(e.ReadBy) + e.ReadMore; n > 0 {
		by := clean(strings.Join(e.ReadBy, ", "))
		if e.ReadMore > 0 {
			by += fmt.Sprintf(" +%d", e.ReadMore)
		}
		return part{styleInfo.Render("sent to AI: " + what + " · read by " + by),
			styleInfo.Render("sent to AI · read by " + by), styleInfo.Render("sent · read")}
	}
	return part{styleWarn.Render("sent to AI: " + what + " · not read yet"),
		styleWarn.Render("sent to AI · not read yet"), styleWarn.Render("sent · unread")}
}

// pointView is the prompt, on the status line while it is open.
func (m *Model) pointView() string { return m.pt.input.View() }
