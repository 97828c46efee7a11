package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// Rule is one of the human's approval rules: every call of one action on
// one origin from one AI session runs without asking, for 30 minutes.
type Rule = approval.Rule

// ApproveWithRule approves a waiting pilot action and makes a rule from
// it (the overlay's a).
func (c *Client) ApproveWithRule(ctx context.Context, id uint64) (Approvals, error) {
	var a Approvals
	return a, c.do(ctx, "POST", "/api/approvals/rule", wire.ApprovalAnswer{ID: id, Approve: true}, &a)
}

// RevokeRule ends rule id; id 0 ends every rule.
func (c *Client) RevokeRule(ctx context.Context, id uint64) (Approvals, error) {
	var a Approvals
	return a, c.do(ctx, "POST", "/api/approvals/rules/revoke", wire.RuleRevoke{ID: id, All: id == 0}, &a)
}

// setApprovals takes the server's approvals: the overlay's queue and the
// Overrides pane's rules.
func (m *Model) setApprovals(st Approvals) {
	m.approval.set(st)
	m.panes.overrides.setRules(st.Rules)
}

// answerRule is a in the overlay: approve this call and every later one
// like it from this AI session, on this origin.
func (a *asking) answerRule(req approval.Request) tea.Cmd {
	if req.Origin == "" {
		return notice("no rule for this call: its page has no http(s) origin (y approves it alone)")
	}
	c := a.client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st, err := c.ApproveWithRule(ctx, req.ID)
		note := fmt.Sprintf("approved, and every %s on %s from this AI session for %d min (x on the rule in Overrides revokes)",
			req.Action, clean(req.Origin), int(approval.RuleTTL.Minutes()))
		return approvalAnswered{state: st, note: note, err: err}
	}
}

// ruleLine is what the overlay's a would do for req.
func ruleLine(req approval.Request) string {
	if req.Origin == "" {
		return "a: no rule here (the page has no http(s) origin)"
	}
	return fmt.Sprintf("a = yes to every %s on %s from this AI for %d min", req.Action, clean(req.Origin),
		int(approval.RuleTTL.Minutes()))
}

// setRules replaces the rules, keeping the cursor on its row.
func (p *overridesPane) setRules(rs []Rule) {
	p.rules = rs
	p.cursor = max(0, min(p.cursor, len(p.shown())+len(p.shownRules())-1))
}

func (p *overridesPane) shownRules() []Rule {
	if p.filter == "" {
		return p.rules
	}
	var out []Rule
	for _, r := range p.rules {
		if strings.Contains(strings.ToLower(r.Agent+" "+r.Action+" "+r.Origin), strings.ToLower(p.filter)) {
			out = append(out, r)
		}
	}
	return out
}

// selectedRule is the rule under the cursor, which comes after the
// settings.
func (p *overridesPane) selectedRule() (Rule, bool) {
	i := p.cursor - len(p.shown())
	rs := p.shownRules()
	if i < 0 || i >= len(rs) {
		return Rule{}, false
	}
	return rs[i], true
}

// revokeRule is x on a rule.
func (p *overridesPane) revokeRule(r Rule) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st, err := p.client.RevokeRule(ctx, r.ID)
		return approvalAnswered{state: st, note: fmt.Sprintf("revoked rule %d: %s on %s asks you again", r.ID, r.Action, clean(r.Origin)), err: err}
	}
}

// describeRule is a rule in one line.
func describeRule(r Rule) string {
	return fmt.Sprintf("rule %d: %s on %s · AI %s", r.ID, r.Action, clean(r.Origin), clean(r.Agent))
}

// left is a rule's time to live: 29m left, 40s left.
func left(d time.Duration) string {
	if d >= time.Minute {
		return fmt.Sprintf("%dm left", int(d.Minutes()))
	}
	return fmt.Sprintf("%ds left", max(0, int(d.Seconds())))
}

// rulesView is the rules' rows under the settings: what each lets the AI
// do without asking, and for how long.
func (p *overridesPane) rulesView(first int) []string {
	rs := p.shownRules()
	if len(rs) == 0 {
		return nil
	}
	out := []string{"", styleColHead.Render(fit(fmt.Sprintf("  APPROVAL RULES (%d): these run without asking you", len(rs)), p.width))}
	for i, r := range rs {
		mark := " "
		if first+i == p.cursor {
			mark = "›"
		}
		line := fit(fmt.Sprintf("%s %-8s %s", mark, left(r.Expires.Sub(p.now())), describeRule(r)), p.width)
		if first+i == p.cursor {
			line = styleSelected.Render(line)
		} else {
			line = ai.style().Render(line)
		}
		out = append(out, line)
	}
	return out
}
