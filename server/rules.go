package server

import (
	"context"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// Approval rules: the human's a in the approval overlay approves a call
// and every later one of its action on its origin from its AI session, for
// approval.RuleTTL. Only the token-holding human API makes or revokes
// one; the AI has no tool or parameter for it. Rules are never saved with
// the human's decisions, so none survives this server.

// watchRules audits each rule's end and shows the dashboard the change.
func (h *humanApproval) watchRules() {
	h.rules.OnEnd(func(r approval.Rule, why string) {
		src, who := "server", "server"
		if why == approval.EndRevoked {
			src, who = "human", "human"
		}
		h.audit(audit.Event{Event: "approval_rule_ended", Result: why, Action: r.Action, RuleID: r.ID, Rule: r.String(),
			Source: src, Agent: who})
	})
	h.rules.OnChange(func() { h.events.publish(wire.EventApprovals, h.view()) })
}

// approvedByRule fills in the call's session and origin (what a rule made
// from it would name) and reports whether a rule already approves it.
func (h *humanApproval) approvedByRule(ctx context.Context, req *approval.Request) bool {
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		req.Session = cs.SessionID()
	}
	// Only the tracked tab's page is known: a call on another tab names no
	// origin, so no rule covers it.
	if pg, ok := h.store.Page(); ok && req.Tab == pg.TabID {
		req.Origin = approval.OriginOf(pg.URL)
	}
	r, ok := h.rules.Match(*req)
	if !ok {
		return false
	}
	h.audit(audit.Event{Event: "approval_decided", Action: req.Action, Selector: req.Selector, Result: approval.Approved,
		RuleID: r.ID, Rule: r.String(), Source: "server", Agent: req.Agent})
	return true
}

// handleRule is the human's a: approve the waiting call and make
// a rule from it.
func (h *humanApproval) handleRule(w http.ResponseWriter, r *http.Request) {
	var req wire.ApprovalAnswer
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	rule, answered, err := h.ApproveWithRule(req.ID, h.rules)
	if err != nil {
		writeProblem(w, err)
		return
	}
	h.audit(audit.Event{Event: "approval_rule_made", Action: rule.Action, RuleID: rule.ID, Rule: rule.String(),
		Source: "human", Agent: "human"})
	for i, a := range answered {
		// The call the human saw is their answer; the others waiting
		// beside it are the rule's.
		src, who := "server", a.Request.Agent
		if i == 0 {
			src, who = "human", "human"
		}
		h.audit(audit.Event{Event: "approval_decided", Action: a.Request.Action, Selector: a.Request.Selector,
			Result: a.Decision.Outcome, LatencyMS: a.Decision.Latency.Milliseconds(), RuleID: rule.ID, Rule: rule.String(),
			Source: src, Agent: who})
	}
	time.AfterFunc(rule.Expires.Sub(rule.Made), h.rules.Sweep)
	writeJSON(w, http.StatusOK, h.view())
}

// handleRuleRevoke is the human's x on a rule, or X on them all.
func (h *humanApproval) handleRuleRevoke(w http.ResponseWriter, r *http.Request) {
	var req wire.RuleRevoke
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if (req.ID == 0) != req.All {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"id": rule} or {"all": true}`))
		return
	}
	if _, err := h.rules.Revoke(req.ID); err != nil {
		writeProblem(w, err)
		return
	}
	if req.All {
		h.stopReplays() // X takes back everything the AI was let do, a replay under way included
	}
	writeJSON(w, http.StatusOK, h.view())
}
