package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/decisions"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// Approvals is the approval mode and the pilot actions that wait.
func (s *Server) Approvals() wire.Approvals {
	return wire.Approvals{Mode: s.approvalMode(), Pending: s.approvals.Pending(), Rules: s.rules.List()}
}

func (s *Server) approvalMode() string { return s.pilotMode.String() }

// setApprovalMode is the human's choice of mode (the flag or the
// dashboard): kept on disk and audited.
func (s *Server) setApprovalMode(mode, by string) {
	if !s.pilotMode.Set(mode) {
		return
	}
	_ = s.saveDecisions()
	s.audit(audit.Event{Event: "approval_mode", To: mode, Reason: by, Source: "human", Agent: "human"})
	s.events.publish(wire.EventApprovals, s.Approvals())
}

// approve holds a pilot action until the human answers, in ask mode: the
// dashboard shows it at once and the AI's call gets progress notifications
// while it waits. nil means go ahead.
func (s *Server) approve(ctx context.Context, p pilot.Action, tab int, steps ...string) error {
	if !s.pilotMode.Asks() {
		return nil
	}
	req := approval.Request{Agent: agent(ctx), Action: p.Name, Selector: p.Selector, Name: p.SnapshotName, Script: p.Script, Tab: tab, Steps: steps}
	if err := s.acts.describeAct(ctx, p, &req); err != nil {
		return err
	}
	if pg, ok := s.store.Page(); ok {
		req.URL = pg.URL
		if req.Tab == 0 {
			req.Tab = pg.TabID
		}
	}
	if s.approvedByRule(ctx, &req) {
		return nil
	}
	timeout := s.cfg.ApprovalTimeout
	if timeout <= 0 {
		timeout = approval.DefaultTimeout
	}
	s.audit(audit.Event{Event: "approval_requested", Action: p.Name, Selector: p.Target(), Source: "ai", Agent: req.Agent})
	d, err := s.approvals.Ask(ctx, req, timeout, func(waited time.Duration) {
		progress(ctx, waited.Seconds(), timeout.Seconds(), "waiting for the human to approve "+p.Name+" in the Gasoline dashboard")
	})
	// Every request ends with a line: the human's answers are written where
	// they are given; the rest here.
	switch {
	case d.Outcome == approval.Cancelled:
		s.audit(audit.Event{Event: "approval_decided", Action: p.Name, Result: d.Outcome, LatencyMS: d.Latency.Milliseconds(), Source: "ai", Agent: req.Agent})
	case err != nil && d.Outcome == "": // never queued (too many wait)
		s.audit(audit.Event{Event: "approval_decided", Action: p.Name, Result: "refused", Error: string(problem.From(err).Code), Source: "server", Agent: req.Agent})
	}
	if err != nil {
		return err
	}
	if d.Outcome == approval.TimedOut {
		s.audit(audit.Event{Event: "approval_decided", Action: p.Name, Result: d.Outcome, LatencyMS: d.Latency.Milliseconds(), Source: "server", Agent: req.Agent})
	}
	switch d.Outcome {
	case approval.Denied:
		msg := "The human denied this pilot action in the Gasoline dashboard"
		if d.Reason != "" {
			msg += ": " + d.Reason
		}
		return problem.New(problem.DeniedByUser, "%s. Do not retry it unchanged.", msg)
	case approval.TimedOut:
		return problem.New(problem.ApprovalTimeout, "Nobody approved this pilot action within %v (approval mode is ask). Ask the human to watch the Gasoline dashboard, then retry.", timeout)
	}
	return nil
}

func (s *Server) handleApprovals(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Approvals())
}

func (s *Server) handleApprovalAnswer(w http.ResponseWriter, r *http.Request) {
	var req wire.ApprovalAnswer
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	a, d, err := s.approvals.Answer(req.ID, req.Approve, req.Reason)
	if err != nil {
		writeProblem(w, err)
		return
	}
	s.audit(audit.Event{Event: "approval_decided", Action: a.Action, Selector: a.Selector, Result: d.Outcome, Reason: d.Reason,
		LatencyMS: d.Latency.Milliseconds(), Source: "human", Agent: "human"})
	writeJSON(w, http.StatusOK, s.Approvals())
}

func (s *Server) handleApprovalMode(w http.ResponseWriter, r *http.Request) {
	var req wire.ApprovalMode
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if req.Mode != decisions.ApprovalAsk && req.Mode != decisions.ApprovalAuto {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"mode": "ask"|"auto"}`))
		return
	}
	s.setApprovalMode(req.Mode, "dashboard")
	s.writeDecided(w, s.Approvals())
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
		s.setApprovalMode(s.cfg.PilotApproval, "--pilot-approval")
	case decisions.ApprovalAsk:
		s.setApprovalMode(s.cfg.PilotApproval, "--pilot-approval")
	default:
		fmt.Fprintf(s.cfg.Log, "gasoline: warning: --pilot-approval %q is neither ask nor auto; asking\n", s.cfg.PilotApproval)
		s.setApprovalMode(decisions.ApprovalAsk, "--pilot-approval")
	}
}
