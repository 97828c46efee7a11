package server

import (
	"net/http"

	"github.com/gasoline-dev/gasoline/features/capturectl"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// overrides are the AI's capture overrides (features/capturectl) as the
// human sees and vetoes them: revoke one or all, allow one again.
type overrides struct {
	*capturectl.Controller
	decided func(http.ResponseWriter, any) // answers a decision, or says saving it failed
}

func (o *overrides) routes(r routes) {
	r.handle("GET /api/overrides", o.handleView)
	r.human("POST /api/overrides/revoke", o.handleRevoke)
	r.human("POST /api/overrides/allow", o.handleAllow)
}

// Overrides lists every setting's state.
func (s *Server) Overrides() capturectl.View { return s.control.View() }

func (o *overrides) handleView(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, o.View())
}

func (o *overrides) handleRevoke(w http.ResponseWriter, r *http.Request) {
	var req wire.Veto
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if req.Setting == "" && !req.All {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"setting": name} or {"all": true}`))
		return
	}
	done, err := o.Revoke(req.Setting)
	if err != nil {
		writeProblem(w, err)
		return
	}
	o.decided(w, wire.Revoked{Revoked: nonNil(done), State: o.View()})
}

func (o *overrides) handleAllow(w http.ResponseWriter, r *http.Request) {
	var req wire.Veto
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if err := o.Allow(req.Setting); err != nil {
		writeProblem(w, err)
		return
	}
	o.decided(w, wire.Allowed{Allowed: req.Setting, State: o.View()})
}
