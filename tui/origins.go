package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
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

// originKeys are the overlay's: y accepts the origin, n refuses it.
type originKeys struct {
	Accept, Refuse key.Binding
}

// trusting is the overlay over every pane while an unknown extension
// origin (a Firefox install) waits: y accepts it, n refuses it.
type trusting struct {
	*common
	keys    originKeys
	pending []origins.Request
}

func newTrusting(c *common) trusting {
	return trusting{common: c, keys: originKeys{
		Accept: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "accept")),
		Refuse: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "refuse")),
	}}
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

// apply takes what concerns waiting origins from an outside event: the
// status (every second, and on connect), the origins event, an answer.
func (tr *trusting) apply(msg tea.Msg) said {
	switch msg := msg.(type) {
	case StatusMsg:
		tr.pending = nil
		if msg.Origins != nil {
			tr.pending = msg.Origins.Pending
		}
	case OriginsMsg:
		tr.pending = msg.Pending
	case originAnswered:
		if msg.err != nil {
			return said{msg.err.Error(), true}
		}
		tr.pending = msg.view.Pending
		return said{text: msg.note}
	}
	return said{}
}

// Update takes y and n while an origin waits; false for other keys.
func (tr *trusting) Update(msg tea.KeyMsg) (tea.Cmd, bool) {
	req, ok := tr.waiting()
	if !ok || !key.Matches(msg, tr.keys.Accept, tr.keys.Refuse) {
		return nil, false
	}
	accept, c := key.Matches(msg, tr.keys.Accept), tr.client
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

// View is the overlay, width×height: which extension, from which browser,
// and what accepting it means.
func (tr *trusting) View(width, height int) string {
	req, _ := tr.waiting()
	w := max(20, width-4)
	lines := []string{
		styleWarn.Render(fit("ACCEPT EXTENSION? "+clean(req.Origin), w)),
		fit("browser: "+clean(req.Browser), w),
		fit("first seen: "+req.At.Local().Format("15:04:05"), w),
		"",
		fit("An extension Gasoline does not know asks to report to this server: a Firefox install has a new", w),
		fit("random origin. Accept only if you just loaded Gasoline's extension in that browser.", w),
		fit("Until you answer it gets nothing, and the answer is remembered for this port.", w),
	}
	if n := len(tr.pending); n > 1 {
		lines = append(lines, styleDim.Render(fmt.Sprintf("%d origins waiting", n)))
	}
	lines = append(lines, "", fit(footLine(tr.keys.Accept, tr.keys.Refuse), w))
	box := lipgloss.NewStyle().Border(lipgloss.ThickBorder()).BorderForeground(lipgloss.Color("11")).Width(w).
		Height(max(1, height-2)).MaxHeight(height)
	return box.Render(strings.Join(lines, "\n"))
}
