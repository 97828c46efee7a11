package tui

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/gasoline-dev/gasoline/server/wire"
)

// Recover answers an unreadable decisions file: from "kept" (the file
// that could not be read, once it reads) or from "nothing" (the human's
// call: it carries the token, and the server audits it).
func (c *Client) Recover(ctx context.Context, from string) (Health, error) {
	var h Health
	return h, c.do(ctx, "POST", "/api/decisions/recover", wire.Recover{From: from}, &h)
}

// recoverKeys are the prompt's: f starts from the kept file, n from
// nothing, esc puts it off; R, anywhere, brings it back.
type recoverKeys struct {
	Recover, Kept, Nothing, Later key.Binding
}

// recovering is the prompt over every pane while the server holds the AI
// because the human's decisions could not be read.
type recovering struct {
	*common
	keys recoverKeys
	// dec is what the server last said of the decisions file (see).
	dec   *wire.Decisions
	later bool
}

func newRecovering(c *common) recovering {
	return recovering{common: c, keys: recoverKeys{
		Recover: key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "recover decisions")),
		Kept:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "from the kept file")),
		Nothing: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "from nothing")),
		Later:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "later (R)")),
	}}
}

// recovered is the server's answer to f or n.
type recovered struct {
	health Health
	note   string
	err    error
}

// unreadable is what the server says of the decisions file, when it could
// not be read.
func unreadable(h *Health) (*wire.Decisions, bool) {
	if h == nil || h.Decisions == nil || h.Decisions.Unreadable == "" {
		return nil, false
	}
	return h.Decisions, true
}

// see takes the server's health: the model calls it whenever that changes.
func (r *recovering) see(h *Health) {
	r.dec, _ = unreadable(h)
}

// shown says whether the prompt covers the panes now.
func (r *recovering) shown() bool { return r.dec != nil && !r.later }

// Update takes R anywhere, and f, n and esc while the prompt is up;
// false for other keys.
func (r *recovering) Update(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := r.keys
	if key.Matches(msg, k.Recover) {
		if r.dec == nil {
			return notice("your decisions were read: nothing to recover"), true
		}
		r.later = false
		return nil, true
	}
	if !r.shown() {
		return nil, false
	}
	from, note := "", ""
	switch {
	case key.Matches(msg, k.Later):
		r.later = true
		return notice("the AI stays held until you recover: R"), true
	case key.Matches(msg, k.Kept):
		from, note = "kept", "recovered your decisions from the kept file: the AI may change capture again"
	case key.Matches(msg, k.Nothing):
		from, note = "nothing", "started from no decisions: the AI may change capture again"
	default:
		return nil, false
	}
	c := r.client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h, err := c.Recover(ctx, from)
		return recovered{health: h, note: note, err: err}
	}, true
}

// View is the prompt, width×height: what could not be read, where it was
// kept, what holds until the human answers.
func (r *recovering) View(width, height int) string {
	d := r.dec
	w := max(20, width-4)
	lines := []string{
		styleErr.Render(fit("YOUR DECISIONS COULD NOT BE READ", w)),
		fit("why: "+clean(d.Unreadable), w),
		fitLeft("kept as: "+clean(d.Kept), w),
		"",
		// The box wraps these at its width.
		"Your revoked settings, pilot block, approval mode and accepted extensions were in that file. " +
			"Until you answer, the AI's capture changes are refused, the Web Pilot is blocked and asks you first.",
		"Fix the kept file and press f to start from it, or press n to start from nothing.",
		"",
		fit(footLine(r.keys.Kept, r.keys.Nothing, r.keys.Later), w),
	}
	box := lipgloss.NewStyle().Border(lipgloss.ThickBorder()).BorderForeground(lipgloss.Color("9")).Width(w).
		Height(max(1, height-2)).MaxHeight(height)
	return box.Render(strings.Join(lines, "\n"))
}

// decisionsPart is the header's word on the decisions file: unreadable
// (the AI is held) or not saved; nil when all is well.
func decisionsPart(h *Health) part {
	switch {
	case h == nil || h.Decisions == nil:
		return nil
	case h.Decisions.Unreadable != "":
		kept := filepath.Base(h.Decisions.Kept)
		return part{styleErr.Render("✗ your decisions could not be read (kept as " + clean(kept) + "): AI held · R"),
			styleErr.Render("✗ decisions unreadable: AI held · R"), styleErr.Render("✗ decisions · R")}
	case h.Decisions.SaveError != "":
		return part{styleErr.Render("✗ decisions not saved: " + clean(h.Decisions.SaveError)), styleErr.Render("✗ decisions not saved")}
	}
	return nil
}
