package server

import (
	"net/http"

	"github.com/gasoline-dev/gasoline/features/capturectl"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// Overrides lists every setting's state.
func (s *Server) Overrides() capturectl.View { return s.control.View() }

func (s *Server) handleOverrides(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Overrides())
}

func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	var req wire.Veto
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if req.Setting == "" && !req.All {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"setting": name} or {"all": true}`))
		return
	}
	done, err := s.control.Revoke(req.Setting)
	if err != nil {
		writeProblem(w, err)
		return
	}
	s.writeDecided(w, wire.Revoked{Revoked: nonNil(done), State: s.Overrides()})
}

func (s *Server) handleAllow(w http.ResponseWriter, r *http.Request) {
	var req wire.Veto
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if err := s.control.Allow(req.Setting); err != nil {
		writeProblem(w, err)
		return
	}
	s.writeDecided(w, wire.Allowed{Allowed: req.Setting, State: s.Overrides()})
}
