package server

import (
	"net/http"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/origins"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// extensionOrigin decides a request's Origin header: the pinned Chrome
// build's, or an extension origin the human accepted. An unknown extension
// origin (Firefox's moz-extension://<uuid>) starts waiting for the human
// here, and is refused until the human accepts it.
func (s *Server) extensionOrigin(r *http.Request, origin string) (ok bool, refused *problem.Error) {
	if origin == ExtensionOrigin {
		return true, nil
	}
	v, added := s.origins.Check(origin, r.UserAgent())
	if added {
		s.trail.write(audit.Event{Event: "origin_pending", Reason: origin, Agent: origins.Browser(r.UserAgent()), Source: "extension"})
	}
	switch v {
	case origins.Accepted:
		return true, nil
	case origins.Waiting:
		return false, problem.New(problem.OriginNotAccepted,
			"the extension at %s waits for the human to accept it in the Gasoline dashboard", origin)
	case origins.Refused:
		return false, problem.New(problem.OriginNotAccepted, "the human refused the extension at %s", origin)
	}
	return false, problem.New(problem.Forbidden, "requests from web pages are refused (Origin %q)", origin)
}

// fromExtension reports whether r carries the extension's Origin (the
// pinned one or an accepted one); guard has already refused the others.
func (s *Server) fromExtension(r *http.Request) bool {
	o := r.Header.Get("Origin")
	return o == ExtensionOrigin || s.origins.Verdict(o) == origins.Accepted
}

// handleOrigins lists the extension origins that wait and the answers.
func (s *Server) handleOrigins(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.origins.View())
}

// handleOriginAnswer is the human accepting or refusing an extension
// origin from the dashboard: token-protected like every human call, so
// neither the AI nor a page can let an extension in.
func (s *Server) handleOriginAnswer(w http.ResponseWriter, r *http.Request) {
	var req wire.OriginAnswer
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if req.Accept == nil {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"origin": "moz-extension://…", "accept": true|false}`))
		return
	}
	browser, err := s.origins.Decide(req.Origin, *req.Accept)
	if err != nil {
		writeProblem(w, problem.New(problem.InvalidParam, "origin %q: %v", req.Origin, err))
		return
	}
	// Saved here, not on every change of the list: an origin that starts
	// waiting is not a decision, and forged ones must not cost an fsync.
	_ = s.saveDecisions()
	ev := "origin_refused"
	if *req.Accept {
		ev = "origin_accepted"
	}
	reason := req.Origin
	if browser != "" {
		reason += " (" + browser + ")"
	}
	s.trail.write(audit.Event{Event: ev, Reason: reason, Source: "human", Agent: "human"})
	s.writeDecided(w, s.origins.View())
}
