package server

import (
	"net/http"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/origins"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// extOrigins are the extension origins the server trusts besides the
// pinned one (features/origins): Firefox gives each install its own, which
// the human accepts or refuses in the dashboard.
type extOrigins struct {
	*origins.Trust
	trail *auditTrail
	// save keeps the human's decisions; decided answers one, or says
	// that saving it failed.
	save    func() error
	decided func(http.ResponseWriter, any)
}

func (o *extOrigins) routes(r routes) {
	r.handle("GET /api/origins", o.handleList)
	r.human("POST /api/origins/answer", o.handleAnswer)
}

// check decides a request's Origin header: the pinned Chrome
// build's, or an extension origin the human accepted. An unknown extension
// origin (Firefox's moz-extension://<uuid>) starts waiting for the human
// here, and is refused until the human accepts it.
func (o *extOrigins) check(r *http.Request, origin string) (ok bool, refused *problem.Error) {
	if origin == ExtensionOrigin {
		return true, nil
	}
	v, added := o.Check(origin, r.UserAgent())
	if added {
		o.trail.write(audit.Event{Event: "origin_pending", Reason: origin, Agent: origins.Browser(r.UserAgent()), Source: "extension"})
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

// trusted reports whether r carries the extension's Origin (the
// pinned one or an accepted one); guard has already refused the others.
func (o *extOrigins) trusted(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	return origin == ExtensionOrigin || o.Verdict(origin) == origins.Accepted
}

// handleList lists the extension origins that wait and the answers.
func (o *extOrigins) handleList(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, o.View())
}

// handleAnswer is the human accepting or refusing an extension
// origin from the dashboard: token-protected like every human call, so
// neither the AI nor a page can let an extension in.
func (o *extOrigins) handleAnswer(w http.ResponseWriter, r *http.Request) {
	var req wire.OriginAnswer
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if req.Accept == nil {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"origin": "moz-extension://…", "accept": true|false}`))
		return
	}
	browser, err := o.Decide(req.Origin, *req.Accept)
	if err != nil {
		writeProblem(w, problem.New(problem.InvalidParam, "origin %q: %v", req.Origin, err))
		return
	}
	// Saved here, not on every change of the list: an origin that starts
	// waiting is not a decision, and forged ones must not cost an fsync.
	_ = o.save()
	ev := "origin_refused"
	if *req.Accept {
		ev = "origin_accepted"
	}
	reason := req.Origin
	if browser != "" {
		reason += " (" + browser + ")"
	}
	o.trail.write(audit.Event{Event: ev, Reason: reason, Source: "human", Agent: "human"})
	o.decided(w, o.View())
}
