package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/gasoline-dev/gasoline/server/wire"
)

// Approvals is the pilot approval mode and the actions waiting.
type Approvals = wire.Approvals

// ApprovalsMsg is the stream's approvals event: sent the moment an action
// starts or stops waiting.
type ApprovalsMsg Approvals

// AnswerApproval approves or denies a waiting pilot action.
func (c *Client) AnswerApproval(ctx context.Context, id uint64, approve bool, reason string) (Approvals, error) {
	var a Approvals
	return a, c.do(ctx, "POST", "/api/approvals/answer", wire.ApprovalAnswer{ID: id, Approve: approve, Reason: reason}, &a)
}

// SetApprovalMode switches the pilot approval mode ("ask" or "auto").
func (c *Client) SetApprovalMode(ctx context.Context, mode string) (Approvals, error) {
	var a Approvals
	return a, c.do(ctx, "POST", "/api/approvals/mode", wire.ApprovalMode{Mode: mode}, &a)
}

// approvalKeys are the overlay's: y approves, a approves and makes a
// rule, n denies with a reason (enter denies, esc goes back), the arrows
// scroll the script; M switches ask and auto, overlay or not.
type approvalKeys struct {
	Approve, Rule, Deny, Mode key.Binding
	Up, Down                  key.Binding
	// Scroll names Up and Down on the overlay's last line.
	Scroll key.Binding
	// While typing the reason for a denial.
	Send, Back key.Binding
}

func newApprovalKeys() approvalKeys {
	l := newListKeys()
	return approvalKeys{
		Approve: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "approve")),
		Rule:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "approve + rule")),
		Deny:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "deny")),
		Mode:    key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "pilot: ask/auto")),
		Up:      l.Up,
		Down:    l.Down,
		Scroll:  key.NewBinding(key.WithHelp("↑/↓", "scroll the script")),
		Send:    key.NewBinding(key.WithKeys("enter")),
		Back:    key.NewBinding(key.WithKeys("esc")),
	}
}

// asking is the overlay over every pane while a pilot action waits: the
// oldest request, whole, with y to approve and n to deny.
type asking struct {
	*common
	keys    approvalKeys
	state   *Approvals
	scroll  int
	denying bool // typing the reason for n
	reason  textinput.Model
}

func newAsking(c *common) asking {
	in := textinput.New()
	in.Prompt = "reason (optional), enter denies, esc goes back: "
	in.CharLimit = 200
	return asking{common: c, keys: newApprovalKeys(), reason: in}
}

// waiting is the oldest request, if any.
func (a *asking) waiting() (wire.Approvals, bool) {
	if a.state == nil || len(a.state.Pending) == 0 {
		return wire.Approvals{}, false
	}
	return *a.state, true
}

// typing says whether keys are the reason for a denial.
func (a *asking) typing() bool {
	_, ok := a.waiting()
	return ok && a.denying
}

// set takes the server's list; a new oldest request starts unscrolled.
func (a *asking) set(st Approvals) {
	if a.state == nil || len(a.state.Pending) == 0 || len(st.Pending) == 0 || a.state.Pending[0].ID != st.Pending[0].ID {
		a.scroll, a.denying = 0, false
		a.reason.Reset()
		a.reason.Blur()
	}
	a.state = &st
}

// Update takes M, and the overlay's keys while a request waits (every key
// while the reason is typed); false for the others.
func (a *asking) Update(msg tea.KeyMsg) (tea.Cmd, bool) {
	st, ok := a.waiting()
	if !ok {
		if key.Matches(msg, a.keys.Mode) {
			return a.toggleMode(), true
		}
		return nil, false
	}
	req := st.Pending[0]
	if a.denying {
		switch {
		case key.Matches(msg, a.keys.Send):
			reason := strings.TrimSpace(a.reason.Value())
			a.denying = false
			a.reason.Blur()
			return a.answer(req.ID, false, reason), true
		case key.Matches(msg, a.keys.Back):
			a.denying = false
			a.reason.Blur()
			return nil, true
		}
		var cmd tea.Cmd
		a.reason, cmd = a.reason.Update(msg)
		return cmd, true
	}
	switch {
	case key.Matches(msg, a.keys.Approve):
		return a.answer(req.ID, true, ""), true
	case key.Matches(msg, a.keys.Rule):
		return a.answerRule(req), true
	case key.Matches(msg, a.keys.Deny):
		a.denying = true
		a.reason.Reset()
		return a.reason.Focus(), true
	case key.Matches(msg, a.keys.Up):
		a.scroll = max(0, a.scroll-1)
	case key.Matches(msg, a.keys.Down):
		a.scroll++
	case key.Matches(msg, a.keys.Mode):
		return a.toggleMode(), true
	default:
		return nil, false
	}
	return nil, true
}

func (a *asking) answer(id uint64, approve bool, reason string) tea.Cmd {
	c := a.client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st, err := c.AnswerApproval(ctx, id, approve, reason)
		note := "approved: the action runs"
		if !approve {
			note = "denied: the AI is told denied_by_user"
		}
		return approvalAnswered{state: st, note: note, err: err}
	}
}

// toggleMode switches between ask and auto.
func (a *asking) toggleMode() tea.Cmd {
	mode := "ask"
	if a.state != nil && a.state.Mode == "ask" {
		mode = "auto"
	}
	c := a.client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st, err := c.SetApprovalMode(ctx, mode)
		return approvalAnswered{state: st, note: "pilot approval: " + mode, err: err}
	}
}

// approvalAnswered is the server's answer to y, n or M.
type approvalAnswered struct {
	state Approvals
	note  string
	err   error
}

// View is the overlay, width×height: who wants what, where, the script
// whole (scrolled with ↑/↓), and the keys.
func (a *asking) View(width, height int) string {
	st, _ := a.waiting()
	req := st.Pending[0]
	w := max(20, width-4)
	var head []string
	head = append(head, styleWarn.Render(fit(fmt.Sprintf("APPROVE? AI %s wants to %s", clean(req.Agent), req.Action), w)))
	if req.URL != "" || req.Tab != 0 {
		head = append(head, fit(fmt.Sprintf("tab %d: %s", req.Tab, clean(req.URL)), w))
	}
	switch {
	case req.Target != "":
		head = append(head, fit("target: "+clean(req.Target), w))
	case req.Selector != "":
		head = append(head, fit("selector: "+clean(req.Selector), w))
	}
	if req.Text != "" {
		head = append(head, fit("text: "+clean(req.Text), w))
	}
	if req.To != "" {
		head = append(head, fit("to: "+clean(req.To), w))
	}
	if req.Name != "" {
		head = append(head, fit("snapshot: "+clean(req.Name), w))
	}
	if left := req.Deadline.Sub(a.now()).Round(time.Second); left > 0 {
		head = append(head, styleDim.Render(fmt.Sprintf("denied on its own in %v · %d waiting", left, len(st.Pending))))
	}
	if l := ruleLine(req); l != "" {
		head = append(head, fit(l, w))
	}
	k := a.keys
	// M's help says "pilot:", which the overlay, all about the pilot, drops.
	foot := footLine(k.Approve, k.Rule, k.Deny, k.Scroll) + " · " + k.Mode.Help().Key + " ask/auto"
	if a.denying {
		foot = a.reason.View()
	}
	room := max(1, height-len(head)-5) // borders, the line count, a blank, the keys
	var body []string
	if req.Script != "" || len(req.Steps) > 0 {
		// A script whole, or a replay's steps, one a line.
		lines := req.Steps
		if req.Script != "" {
			lines = strings.Split(strings.ReplaceAll(req.Script, "\t", "  "), "\n")
		}
		a.scroll = min(a.scroll, max(0, len(lines)-room))
		end := min(len(lines), a.scroll+room)
		for _, l := range lines[a.scroll:end] {
			body = append(body, fit(clean(l), w))
		}
		if len(lines) > room {
			body = append(body, styleDim.Render(fmt.Sprintf("lines %d–%d of %d", a.scroll+1, end, len(lines))))
		}
	}
	box := lipgloss.NewStyle().Border(lipgloss.ThickBorder()).BorderForeground(lipgloss.Color("11")).Width(w).
		Height(max(1, height-2)).MaxHeight(height)
	content := strings.Join(append(append(head, body...), "", fit(foot, w)), "\n")
	return box.Render(content)
}
