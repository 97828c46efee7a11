package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/gasoline-dev/gasoline/features/origins"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// OriginsMsg is the stream's origins event: an extension origin started
// waiting for the human, or the human answered one.
type OriginsMsg origins.View

// AnswerOrigin accepts or refuses an extension origin (the human's call:
// it carries the token).
func (c *Client) AnswerOrigin(ctx context.Context, origin string, accept bool) (origins.View, error) {
	var v origins.View
	return v, c.do(ctx, "POST", "/api/origins/answer", wire.OriginAnswer{Origin: origin, Accept: &accept}, &v)
}

// trusting is the overlay over every pane while an unknown extension
// origin (a Firefox install) waits: y accepts it, n refuses it.
type trusting struct {
	pending []origins.Request
}

// waiting is the origin heard from most recently, if any: a real install
// calls every few seconds, a forged origin that called once sinks.
func (tr *trusting) waiting() (origins.Request, bool) {
	if len(tr.pending) == 0 {
		return origins.Request{}, false
	}
	return tr.pending[len(tr.pending)-1], true
}

// originAnswered is the server's answer to y or n.
type originAnswered struct {
	view origins.View
	note string
	err  error
}

// applyTrust takes what concerns waiting origins from an outside event:
// the status (every second, and on connect), the origins event, an answer.
func (m *Model) applyTrust(msg tea.Msg) {
	switch msg := msg.(type) {
	case StatusMsg:
		m.trust.pending = nil
		if msg.Origins != nil {
			m.trust.pending = msg.Origins.Pending
		}
	case OriginsMsg:
		m.trust.pending = msg.Pending
	case originAnswered:
		if msg.err != nil {
			m.setNote(msg.err.Error(), true)
			return
		}
		m.trust.pending = msg.view.Pending
		m.setNote(msg.note, false)
	}
}

// trustKey handles y and n while an origin waits; false for other keys.
func (m *Model) trustKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	req, ok := m.trust.waiting()
	if !ok || (msg.String() != "y" && msg.String() != "n") {
		return nil, false
	}
	accept, c := msg.String() == "y", m.client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		v, err := c.AnswerOrigin(ctx, req.Origin, accept)
		note := "accepted: " + req.Origin + " may now report to Gasoline"
		if !accept {
			note = "refused: " + req.Origin + " gets nothing from Gasoline"
		}
		return originAnswered{view: v, note: note, err: err}
	}, true
}

// trustView is the overlay: which extension, from which browser, and what
// accepting it means.
func (m *Model) trustView(height int) string {
	req, _ := m.trust.waiting()
	w := max(20, m.width-4)
	lines := []string{
		styleWarn.Render(fit("ACCEPT EXTENSION? "+clean(req.Origin), w)),
		fit("browser: "+clean(req.Browser), w),
		fit("first seen: "+req.At.Local().Format("15:04:05"), w),
		"",
		fit("An extension Gasoline does not know asks to report to this server: a Firefox install has a new", w),
		fit("random origin. Accept only if you just loaded Gasoline's extension in that browser.", w),
		fit("Until you answer it gets nothing, and the answer is remembered for this port.", w),
	}
	if n := len(m.trust.pending); n > 1 {
		lines = append(lines, styleDim.Render(fmt.Sprintf("%d origins waiting", n)))
	}
	lines = append(lines, "", fit("y accept · n refuse", w))
	box := lipgloss.NewStyle().Border(lipgloss.ThickBorder()).BorderForeground(lipgloss.Color("11")).Width(w).
		Height(max(1, height-2)).MaxHeight(height)
	return box.Render(strings.Join(lines, "\n"))
}
