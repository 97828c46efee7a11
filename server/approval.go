package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/decisions"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// humanApproval is the human's say over the AI's pilot actions: the
// approval mode (ask or auto), the actions that wait for an answer, and the
// human's approval rules (rules.go).
type humanApproval struct {
	*approval.Queue
	mode    approval.Mode
	rules   *approval.Rules
	store   *capture.Store
	acts    *actor
	events  *hub
	audit   func(audit.Event)
	timeout time.Duration // the wait for the human (0: approval.DefaultTimeout)
	// save keeps the human's decisions; decided answers one, or says
	// that saving it failed.
	save    func() error
	decided func(http.ResponseWriter, any)
	// stopReplays stops the AI's replays under way (the human's X).
	stopReplays func()
}

func (h *humanApproval) routes(r routes) {
	r.handle("GET /api/approvals", h.handleList)
	r.human("POST /api/approvals/answer", h.handleAnswer)
	r.human("POST /api/approvals/mode", h.handleMode)
	r.human("POST /api/approvals/rule", h.handleRule)
	r.human("POST /api/approvals/rules/revoke", h.handleRuleRevoke)
}

// Approvals is the approval mode and the pilot actions that wait.
func (s *Server) Approvals() wire.Approvals { return s.approvals.view() }

func (h *humanApproval) view() wire.Approvals {
	return wire.Approvals{Mode: h.mode.String(), Pending: h.Pending(), Rules: h.rules.List()}
}

// setMode is the human's choice of mode (the flag or the
// dashboard): kept on disk and audited.
func (h *humanApproval) setMode(mode, by string) {
	if !h.mode.Set(mode) {
		return
	}
	_ = h.save()
	h.audit(audit.Event{Event: "approval_mode", To: mode, Reason: by, Source: "human", Agent: "human"})
	h.events.publish(wire.EventApprovals, h.view())
}

// approve holds a pilot action until the human answers, in ask mode: the
// dashboard shows it at once and the AI's call gets progress notifications
// while it waits. nil means go ahead.
func (h *humanApproval) approve(ctx context.Context, p pilot.Action, tab int, steps ...string) error {
	if !h.mode.Asks() {
		return nil
	}
	req := approval.Request{Agent: agent(ctx), Action: p.Name, Selector: p.Selector, Name: p.SnapshotName, Script: p.Script, Tab: tab, Steps: steps}
	if err := h.acts.describeAct(ctx, p, &req); err != nil {
		return err
	}
	if pg, ok := h.store.Page(); ok {
		req.URL = pg.URL
		if req.Tab == 0 {
			req.Tab = pg.TabID
		}
	}
	if h.approvedByRule(ctx, &req) {
		return nil
	}
	timeout := h.timeout
	if timeout <= 0 {
		timeout = approval.DefaultTimeout
	}
	h.audit(audit.Event{Event: "approval_requested", Action: p.Name, Selector: p.Target(), Source: "ai", Agent: req.Agent})
	d, err := h.Ask(ctx, req, timeout, func(waited time.Duration) {
		progress(ctx, waited.Seconds(), timeout.Seconds(), "waiting for the human to approve "+p.Name+" in the Gasoline dashboard")
	})
	// Every request ends with a line: the human's answers are written where
	// they are given; the rest here.
	switch {
	case d.Outcome == approval.Cancelled:
		h.audit(audit.Event{Event: "approval_decided", Action: p.Name, Result: d.Outcome, LatencyMS: d.Latency.Milliseconds(), Source: "ai", Agent: req.Agent})
	case err != nil && d.Outcome == "": // never queued (too many wait)
		h.audit(audit.Event{Event: "approval_decided", Action: p.Name, Result: "refused", Error: string(problem.From(err).Code), Source: "server", Agent: req.Agent})
	}
	if err != nil {
		return err
	}
	if d.Outcome == approval.TimedOut {
		h.audit(audit.Event{Event: "approval_decided", Action: p.Name, Result: d.Outcome, LatencyMS: d.Latency.Milliseconds(), Source: "server", Agent: req.Agent})
	}
	return d.Refusal(timeout)
}

func (h *humanApproval) handleList(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.view())
}

func (h *humanApproval) handleAnswer(w http.ResponseWriter, r *http.Request) {
	var req wire.ApprovalAnswer
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	a, d, err := h.Answer(req.ID, req.Approve, req.Reason)
	if err != nil {
		writeProblem(w, err)
		return
	}
	h.audit(audit.Event{Event: "approval_decided", Action: a.Action, Selector: a.Selector, Result: d.Outcome, Reason: d.Reason,
		LatencyMS: d.Latency.Milliseconds(), Source: "human", Agent: "human"})
	writeJSON(w, http.StatusOK, h.view())
}

func (h *humanApproval) handleMode(w http.ResponseWriter, r *http.Request) {
	var req wire.ApprovalMode
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if req.Mode != decisions.ApprovalAsk && req.Mode != decisions.ApprovalAuto {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"mode": "ask"|"auto"}`))
		return
	}
	h.setMode(req.Mode, "dashboard")
	h.decided(w, h.view())
}

// applyApprovalFlag is --pilot-approval: given, it wins over the saved
// mode and is saved in turn.
func (s *Server) applyApprovalFlag() {
	switch s.cfg.PilotApproval {
	case "":
	case decisions.ApprovalAuto:
		if s.dec.held != nil {
			// The flag is in whatever started this process, the AI's own
			// configuration included: it does not lift the hold.
			fmt.Fprintln(s.cfg.Log, "gasoline: warning: --pilot-approval auto is ignored until the human recovers their decisions in the dashboard")
			return
		}
		s.approvals.setMode(s.cfg.PilotApproval, "--pilot-approval")
	case decisions.ApprovalAsk:
		s.approvals.setMode(s.cfg.PilotApproval, "--pilot-approval")
	default:
		fmt.Fprintf(s.cfg.Log, "gasoline: warning: --pilot-approval %q is neither ask nor auto; asking\n", s.cfg.PilotApproval)
		s.approvals.setMode(decisions.ApprovalAsk, "--pilot-approval")
	}
}
