package server

import (
	"net/http"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// PageLeft is the body of POST /page-left: the extension's worker saw a
// tab's document go away (a new document committed in its main frame, or
// the tab closed) at TS.
type PageLeft struct {
	TabID  int          `json:"tab"`
	Reason string       `json:"reason"` // one of pageLeftReasons' keys
	TS     capture.Time `json:"ts"`
}

// pageLeftReasons are the reasons the worker gives, and how a socket's
// close says them.
var pageLeftReasons = map[string]string{
	"reload":     "the page was reloaded",
	"navigation": "the page navigated away",
	"tab_closed": "the tab was closed",
}

// handlePageLeft closes what the gone document left open: its WebSockets,
// which the page itself cannot report closed.
func (s *Server) handlePageLeft(w http.ResponseWriter, r *http.Request) {
	var p PageLeft
	if err := decodeBody(r, &p); err != nil {
		writeProblem(w, err)
		return
	}
	reason, ok := pageLeftReasons[p.Reason]
	if !ok || p.TabID <= 0 {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"tab": a tab id, "reason": "reload"|"navigation"|"tab_closed", "ts": ms}`))
		return
	}
	n := s.store.PageLeft(p.TabID, p.TS, reason)
	if n > 0 {
		s.settle()
	}
	writeJSON(w, http.StatusOK, map[string]int{"closed": n})
}
