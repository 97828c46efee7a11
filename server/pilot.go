package server

import (
	"net/http"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// pilotGate is the say of the human and of the extension over the AI Web
// Pilot (features/pilot): the popup's switch as the extension reports it,
// the human's block from the dashboard, and the status both read.
type pilotGate struct {
	*pilot.Switch
	queries *browser.Broker
	events  *hub
	trail   *auditTrail
	// save keeps the human's decisions; decided answers one, or says
	// that saving it failed.
	save    func() error
	decided func(http.ResponseWriter, any)
}

func (g *pilotGate) routes(r routes) {
	r.handle("GET /pilot-status", g.handleStatus)
	r.human("POST /api/pilot/block", g.handleBlock)
}

func (g *pilotGate) status() pilot.Status { return g.Status(g.queries.Reachable()) }

// PilotStatus is the pilot's state as every surface reports it.
func (s *Server) PilotStatus() pilot.Status { return s.pilot.status() }

func (g *pilotGate) handleStatus(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, g.status())
}

// handleBlock is the human's block from the dashboard. It can only
// take the pilot away from the AI: enabling is the popup's alone.
func (g *pilotGate) handleBlock(w http.ResponseWriter, r *http.Request) {
	var req wire.PilotBlock
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if req.Blocked == nil {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"blocked": true|false}`))
		return
	}
	g.SetBlocked(*req.Blocked)
	_ = g.save()
	ev := "pilot_unblocked"
	if *req.Blocked {
		ev = "pilot_blocked"
	}
	g.trail.write(audit.Event{Event: ev, Source: "human", Agent: "human"})
	st := g.status()
	g.events.publish(wire.EventPilot, st)
	g.decided(w, st)
}

// note records the toggle state the extension reports on a poll
// (?pilot=true|false). Only the extension's own origin is believed; and the
// extension refuses pilot actions on its own while its toggle is off.
func (g *pilotGate) note(r *http.Request, fromExtension bool) {
	if !fromExtension {
		return
	}
	var on bool
	switch r.URL.Query().Get("pilot") {
	case "true":
		on = true
	case "false":
	default:
		g.Touch()
		return
	}
	g.report(on)
}

// report records the popup's switch as the extension reports it, and
// audits every flip as the extension's report: any local process can send
// what the extension sends, so the line does not say the human did it.
func (g *pilotGate) report(on bool) {
	if !g.Report(on) {
		return
	}
	ev := "pilot_switched_off"
	if on {
		ev = "pilot_switched_on"
	}
	g.trail.write(audit.Event{Event: ev, Source: "extension", Agent: "extension"})
}
