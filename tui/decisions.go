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

// recovering is the prompt over every pane while the server holds the AI
// because the human's decisions could not be read: f starts from the kept
// file, n from nothing, esc puts it off (R brings it back).
type recovering struct {
	later bool
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

// recoverPrompt says whether the prompt covers the panes now.
func (m *Model) recoverPrompt() bool {
	_, ok := unreadable(m.health)
	return ok && !m.recovery.later
}

func (m *Model) applyRecover(msg tea.Msg) {
	if msg, ok := msg.(recovered); ok {
		if msg.err != nil {
			m.setNote(msg.err.Error(), true)
			return
		}
		m.health = &msg.health
		m.setNote(msg.note, false)
	}
}

// recoverKey handles R anywhere, and f, n and esc while the prompt is up;
// false for other keys.
func (m *Model) recoverKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if key.Matches(msg, m.keys.Recover) {
		if _, ok := unreadable(m.health); !ok {
			return notice("your decisions were read: nothing to recover"), true
		}
		m.recovery.later = false
		return nil, true
	}
	if !m.recoverPrompt() {
		return nil, false
	}
	from, note := "", ""
	switch msg.String() {
	case "esc":
		m.recovery.later = true
		return notice("the AI stays held until you recover: R"), true
	case "f":
		from, note = "kept", "recovered your decisions from the kept file: the AI may change capture again"
	case "n":
		from, note = "nothing", "started from no decisions: the AI may change capture again"
	default:
		return nil, false
	}
	c := m.client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h, err := c.Recover(ctx, from)
		return recovered{health: h, note: note, err: err}
	}, true
}

// recoverView is the prompt: what could not be read, where it was kept,
// what holds until the human answers.
func (m *Model) recoverView(height int) string {
	d, _ := unreadable(m.health)
	w := max(20, m.width-4)
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
		fit("f from the kept file · n from nothing · esc later (R)", w),
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
