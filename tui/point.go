package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
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

// pointKeys are the note prompt's: enter sends with the note, esc
// without.
type pointKeys struct {
	Send, Plain key.Binding
}

// pointer is `s`: the prompt for a note about the selected row, and the
// last thing sent, for the header.
type pointer struct {
	*common
	keys  pointKeys
	on    bool
	input textinput.Model
	kind  string
	entry json.RawMessage
	what  string // the row's line, for the status note
	sent  *wire.Pointed
}

func newPointer(c *common) pointer {
	in := textinput.New()
	in.Prompt = "s note for the AI: "
	in.Placeholder = "optional; enter sends, esc sends without"
	in.CharLimit = maxNoteChars
	in.Cursor.SetMode(cursor.CursorStatic)
	return pointer{common: c, input: in, keys: pointKeys{
		Send:  key.NewBinding(key.WithKeys("enter")),
		Plain: key.NewBinding(key.WithKeys("esc")),
	}}
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

// clear is S: the board is cleared; the stream's pointed event takes the
// header's "sent to AI" away.
func (p *pointer) clear() tea.Cmd {
	if p.client == nil {
		return notice("not connected to a server")
	}
	c := p.client
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
	if _, waiting := m.approval.waiting(); waiting {
		return notice("answer the pilot's request first: y or n")
	}
	src, line, ok := m.pane().Pick()
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
	return m.point.open(kind, b, line, m.width)
}

// open starts the note for an entry.
func (p *pointer) open(kind string, entry json.RawMessage, what string, width int) tea.Cmd {
	p.on, p.kind, p.entry, p.what = true, kind, entry, what
	p.input.Reset()
	p.input.Width = max(10, width-len(p.input.Prompt)-1)
	return p.input.Focus()
}

// Update takes every key while the prompt is open: it types the note;
// enter sends with it, esc without.
func (p *pointer) Update(msg tea.KeyMsg) (tea.Cmd, bool) {
	switch {
	case !p.on:
		return nil, false
	case key.Matches(msg, p.keys.Send):
		return p.send(strings.TrimSpace(p.input.Value())), true
	case key.Matches(msg, p.keys.Plain):
		return p.send(""), true
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return cmd, true
}

func (p *pointer) send(note string) tea.Cmd {
	p.on = false
	p.input.Blur()
	if p.client == nil {
		return notice("not connected to a server")
	}
	c, pt := p.client, wire.Point{Kind: p.kind, Entry: p.entry, Note: note}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st, err := c.Point(ctx, pt)
		return pointedAnswer{st, err}
	}
}

// apply takes the server's answer and the stream's updates.
func (p *pointer) apply(msg tea.Msg) said {
	switch msg := msg.(type) {
	case pointedAnswer:
		if msg.err != nil {
			return said{"s: " + msg.err.Error(), true}
		}
		p.setSent(msg.state)
		note := "sent to the AI: every session reads it at the top of its next observe"
		if msg.state.Streamed > 0 {
			note = fmt.Sprintf("sent to the AI: %d streaming session(s) notified; the others read it on their next observe", msg.state.Streamed)
		}
		return said{text: note}
	case PointedMsg:
		p.setSent(wire.Pointed(msg))
	}
	return said{}
}

// setSent keeps the newest state: a late answer does not undo a read the
// stream already reported.
func (p *pointer) setSent(st wire.Pointed) {
	old := p.sent
	if old != nil && old.Newest != nil && st.Newest != nil && old.Newest.ID == st.Newest.ID &&
		len(old.Newest.ReadBy)+old.Newest.ReadMore > len(st.Newest.ReadBy)+st.Newest.ReadMore {
		return
	}
	p.sent = &st
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

// View is the prompt, on the status line while it is open.
func (p *pointer) View() string { return p.input.View() }
