package server

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capturectl"
	"github.com/gasoline-dev/gasoline/features/decisions"
)

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
		// Fail towards the human: a file we cannot read blocks the pilot
		// rather than silently forgetting a block.
		fmt.Fprintf(s.cfg.Log, "gasoline: warning: %v; the Web Pilot stays blocked until the human unblocks it\n", err)
		st = decisions.State{PilotBlocked: true}
	}
	s.control.Restore(st.Revoked)
	s.pilot.SetBlocked(st.PilotBlocked)
	s.approval.Store(st.Approval == decisions.ApprovalAsk)
	s.origins.Restore(st.Origins)
	s.restored = st.Summary()
	if s.restored != "" {
		s.audit(audit.Event{Event: "decisions_restored", Reason: s.restored, Source: "server"})
	}
	if len(st.AIOverrides) > 0 {
		names := slices.Sorted(maps.Keys(st.AIOverrides))
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s → %v", n, st.AIOverrides[n]))
		}
		s.bootAlert = &capturectl.Alert{Level: "warning", Type: "capture_dropped",
			Message: "Gasoline's server changed hands (restart or takeover): the AI capture overrides it held (" +
				strings.Join(parts, ", ") + ") were dropped and are back to the user's defaults. " +
				"Set them again if you still need them.",
			Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05.000Z")}
		s.audit(audit.Event{Event: "capture_reset", Reason: "takeover", Setting: strings.Join(names, ","), Source: "server"})
	}
	// The file changes only when this start changed what it must hold: the
	// dropped AI overrides are forgotten, an unreadable file becomes the
	// blocked state. Otherwise it holds what was just read, and rewriting
	// it would only make every start wait on an fsync.
	if err != nil || len(st.AIOverrides) > 0 {
		s.saveDecisions()
	}
}

// saveDecisions writes the human's decisions, and the AI overrides held
// now, to the state file.
func (s *Server) saveDecisions() {
	if s.cfg.StateFile == "" {
		return
	}
	s.decMu.Lock()
	defer s.decMu.Unlock()
	st := decisions.State{
		Revoked:      s.control.State().Revoked,
		PilotBlocked: s.pilot.Status(false).BlockedByUser,
		AIOverrides:  s.control.Values(),
		Origins:      s.origins.Decided(),
	}
	if s.approval.Load() {
		st.Approval = decisions.ApprovalAsk
	}
	if err := decisions.Save(s.cfg.StateFile, st); err != nil {
		fmt.Fprintf(s.cfg.Log, "gasoline: warning: %v\n", err)
	}
}

// Restored says what the server restored of the human's decisions at
// start ("" when nothing).
func (s *Server) Restored() string { return s.restored }

// bootAlertFor is the alert about dropped overrides, the first time a
// session asks. The caller holds s.alertMu.
func (s *Server) bootAlertFor(session string) []capturectl.Alert {
	if s.bootAlert == nil || s.bootSeen[session] {
		return nil
	}
	s.bootSeen[session] = true
	return []capturectl.Alert{*s.bootAlert}
}
