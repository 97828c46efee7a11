package server

import (
	"net/http"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// PilotStatus is the pilot's state as every surface reports it.
func (s *Server) PilotStatus() pilot.Status { return s.pilot.Status(s.queries.Reachable()) }

func (s *Server) handlePilotStatus(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.PilotStatus())
}

// handlePilotBlock is the human's block from the dashboard. It can only
// take the pilot away from the AI: enabling is the popup's alone.
func (s *Server) handlePilotBlock(w http.ResponseWriter, r *http.Request) {
	var req wire.PilotBlock
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if req.Blocked == nil {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"blocked": true|false}`))
		return
	}
	s.pilot.SetBlocked(*req.Blocked)
	_ = s.saveDecisions()
	ev := "pilot_unblocked"
	if *req.Blocked {
		ev = "pilot_blocked"
	}
	s.trail.write(audit.Event{Event: ev, Source: "human", Agent: "human"})
	st := s.PilotStatus()
	s.events.publish(wire.EventPilot, st)
	s.writeDecided(w, st)
}

// notePilot records the toggle state the extension reports on a poll
// (?pilot=true|false). Only the extension's own origin is believed; and the
// extension refuses pilot actions on its own while its toggle is off.
func (s *Server) notePilot(r *http.Request) {
	if !s.fromExtension(r) {
		return
	}
	var on bool
	switch r.URL.Query().Get("pilot") {
	case "true":
		on = true
	case "false":
	default:
		s.pilot.Touch()
		return
	}
	s.reportPilot(on)
}

// reportPilot records the popup's switch as the extension reports it, and
// audits every flip as the extension's report: any local process can send
// what the extension sends, so the line does not say the human did it.
func (s *Server) reportPilot(on bool) {
	if !s.pilot.Report(on) {
		return
	}
	ev := "pilot_switched_off"
	if on {
		ev = "pilot_switched_on"
	}
	s.trail.write(audit.Event{Event: ev, Source: "extension", Agent: "extension"})
}
