package server

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capturectl"
	"github.com/gasoline-dev/gasoline/features/decisions"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// unreadableRefusal is what the AI gets for a capture change while the
// human's decisions wait to be recovered.
var unreadableRefusal = problem.New(problem.DecisionsUnreadable,
	"The human's Gasoline settings (revoked capture settings, the pilot block, the approval mode) could not be read "+
		"from disk, so capture changes are refused until the human looks. Ask the human to open the Gasoline dashboard "+
		"(run gasoline in a terminal) and recover them; do not retry until they have.")

// restoreDecisions brings back what the human decided under a previous
// server on this port (a restart, or a takeover after the owner quit), says
// so in the audit and the header, and prepares an alert for the AI when the
// previous server's AI overrides were dropped on the way.
func (s *Server) restoreDecisions() {
	if s.cfg.StateFile == "" {
		return
	}
	st, err := decisions.Load(s.cfg.StateFile)
	if err != nil {
		st = s.keepUnreadable(err)
	}
	if st.Unreadable != nil {
		// Fail towards the human until they look: whatever the file held
		// may have revoked or blocked more than we know.
		st.PilotBlocked, st.Approval = true, decisions.ApprovalAsk
		st.AuditReads = true
		s.dec.held = st.Unreadable
		s.control.RefuseAI(unreadableRefusal)
	}
	s.control.Restore(st.Revoked)
	s.pilot.SetBlocked(st.PilotBlocked)
	s.approvals.mode.Set(st.Approval)
	s.reads.SetAudited(st.AuditReads)
	s.origins.Restore(st.Origins)
	if st.Unreadable == nil {
		s.dec.restored = st.Summary()
	}
	if s.dec.restored != "" {
		s.trail.write(audit.Event{Event: "decisions_restored", Reason: s.dec.restored, Source: "server"})
	}
	if len(st.AIOverrides) > 0 {
		names := slices.Sorted(maps.Keys(st.AIOverrides))
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s → %v", n, st.AIOverrides[n]))
		}
		s.alerts.boot = &capturectl.Alert{Level: "warning", Type: "capture_dropped",
			Message: "Gasoline's server changed hands (restart or takeover): the AI capture overrides it held (" +
				strings.Join(parts, ", ") + ") were dropped and are back to the user's defaults. " +
				"Set them again if you still need them.",
			Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05.000Z")}
		s.trail.write(audit.Event{Event: "capture_reset", Reason: "takeover", Setting: strings.Join(names, ","), Source: "server"})
	}
	// The file changes only when this start changed what it must hold: the
	// dropped AI overrides are forgotten, an unreadable file becomes the
	// held state beside the kept one. Otherwise it holds what was just
	// read, and rewriting it would only make every start wait on an fsync.
	if err != nil || len(st.AIOverrides) > 0 {
		_ = s.saveDecisions()
	}
}

// keepUnreadable moves an unreadable decisions file aside, so that no
// save replaces it, and returns the held state that stands in for it.
func (s *Server) keepUnreadable(loadErr error) decisions.State {
	now := time.Now()
	u := &decisions.Unreadable{Reason: loadErr.Error(), At: now.UTC()}
	kept, err := decisions.KeepAside(s.cfg.StateFile, now)
	if err != nil {
		// It stays where it is, and nothing is written over it.
		s.dec.stuck = true
		u.Reason += "; " + err.Error()
	}
	u.Kept = kept
	fmt.Fprintf(s.cfg.Log, "gasoline: warning: %s; kept as %s. Until you recover in the dashboard, the AI's capture changes are refused, "+
		"the Web Pilot is blocked and pilot approval is ask\n", u.Reason, keptName(u, s.cfg.StateFile))
	s.trail.write(audit.Event{Event: "decisions_unreadable", Reason: u.Reason, Source: "server"})
	return decisions.State{Unreadable: u}
}

func keptName(u *decisions.Unreadable, path string) string {
	if u.Kept == "" {
		return path
	}
	return u.Kept
}

// errStuck is a save refused because the unreadable file could not be
// moved aside: writing would destroy it.
var errStuck = errors.New("the unreadable decisions file could not be moved aside, so it is not written over")

// saveDecisions writes the human's decisions, and the AI overrides held
// now, to the state file. A failure is kept for the dashboard's header and
// returned, so the human's call that caused it can say so.
func (s *Server) saveDecisions() error {
	if s.cfg.StateFile == "" {
		return nil
	}
	s.dec.mu.Lock()
	defer s.dec.mu.Unlock()
	st := decisions.State{
		Revoked:      s.control.State().Revoked,
		PilotBlocked: s.pilot.Status(false).BlockedByUser,
		AIOverrides:  s.control.Values(),
		Origins:      s.origins.Decided(),
		Unreadable:   s.dec.held,
		AuditReads:   s.reads.Audited(),
	}
	if s.approvals.mode.Asks() {
		st.Approval = approval.Ask
	}
	err := errStuck
	if !s.dec.stuck {
		err = decisions.Save(s.cfg.StateFile, st)
	}
	s.dec.saveErr = err
	if err != nil {
		fmt.Fprintf(s.cfg.Log, "gasoline: warning: %v\n", err)
	}
	return err
}

// writeDecided answers a human call that changed a decision: v, or a 5xx
// when the change could not be saved, since it holds for this server only.
func (s *Server) writeDecided(w http.ResponseWriter, v any) {
	s.dec.mu.Lock()
	err := s.dec.saveErr
	s.dec.mu.Unlock()
	if err != nil {
		writeProblem(w, problem.New(problem.NotSaved, "The change holds for this server, but saving it failed (%v): "+
			"a restart would lose it. Fix the file or its folder, then make the change again.", err))
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// decisionsHealth is what the header shows of the decisions file; nil
// when all is well.
func (s *Server) decisionsHealth() *wire.Decisions {
	s.dec.mu.Lock()
	defer s.dec.mu.Unlock()
	if s.dec.held == nil && s.dec.saveErr == nil {
		return nil
	}
	d := &wire.Decisions{}
	if u := s.dec.held; u != nil {
		d.Unreadable, d.Kept = u.Reason, keptName(u, s.cfg.StateFile)
	}
	if s.dec.saveErr != nil {
		d.SaveError = s.dec.saveErr.Error()
	}
	return d
}

// handleRecover is the human's answer to an unreadable decisions file:
// start from the kept file (once it reads: the human may have fixed it)
// or from nothing. Either lifts the hold on the AI.
func (s *Server) handleRecover(w http.ResponseWriter, r *http.Request) {
	var req wire.Recover
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	s.dec.mu.Lock()
	held := s.dec.held
	s.dec.mu.Unlock()
	if held == nil {
		writeProblem(w, problem.New(problem.NotFound, "the decisions file was read; there is nothing to recover"))
		return
	}
	var reason string
	switch req.From {
	case "kept":
		path := keptName(held, s.cfg.StateFile)
		if _, err := os.Lstat(path); err != nil {
			// Load would read a missing file as no decisions at all.
			writeProblem(w, problem.New(problem.DecisionsUnreadable, "the kept file is gone (%v): start from nothing", err))
			return
		}
		st, err := decisions.Load(path)
		if err != nil {
			writeProblem(w, problem.New(problem.DecisionsUnreadable, "the kept file still cannot be read (%v): fix it, or start from nothing", err))
			return
		}
		s.control.Restore(st.Revoked)
		s.pilot.SetBlocked(st.PilotBlocked)
		s.approvals.mode.Set(st.Approval)
		s.reads.SetAudited(st.AuditReads)
		s.origins.Restore(append(s.origins.Decided(), st.Origins...)) // the answers given since win
		reason = "from the kept file " + path
		if sum := st.Summary(); sum != "" {
			reason += ": " + sum
		}
	case "nothing":
		if s.dec.stuck {
			if _, err := decisions.KeepAside(s.cfg.StateFile, time.Now()); err != nil {
				writeProblem(w, problem.New(problem.NotSaved, "the unreadable file still cannot be moved aside (%v); move it yourself", err))
				return
			}
		}
		s.pilot.SetBlocked(false)
		s.approvals.mode.Set(s.cfg.PilotApproval)
		s.reads.SetAudited(false)
		reason = "from nothing"
	default:
		writeProblem(w, problem.New(problem.InvalidParam, `want {"from": "kept"|"nothing"}`))
		return
	}
	s.dec.mu.Lock()
	s.dec.held, s.dec.stuck = nil, false
	s.dec.mu.Unlock()
	s.control.RefuseAI(nil)
	_ = s.saveDecisions()
	s.trail.write(audit.Event{Event: "decisions_recovered", Reason: reason, Source: "human", Agent: "human"})
	s.events.publish(wire.EventPilot, s.PilotStatus())
	s.events.publish(wire.EventApprovals, s.Approvals())
	s.writeDecided(w, s.Health())
}

// Restored says what the server restored of the human's decisions at
// start ("" when nothing).
func (s *Server) Restored() string { return s.dec.restored }
