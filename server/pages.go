package server

import (
	"fmt"
	"net/http"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/history"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// setPage records the tracked tab and keeps it for the port's next owner.
func (s *Server) setPage(p capture.Page) {
	s.hist.pageSave.Lock()
	defer s.hist.pageSave.Unlock()
	s.store.SetPage(p)
	s.keepPage()
}

// keepPage writes the tracked tab for the next owner; the caller holds
// pageSave.
func (s *Server) keepPage() {
	if s.hist.log == nil {
		return
	}
	kept, _ := s.store.Page() // as the store scrubbed it
	if err := history.SavePage(s.cfg.HistoryDir, kept); err != nil {
		fmt.Fprintf(s.cfg.Log, "gasoline: warning: keep the tracked tab: %v\n", err)
	}
}

// restorePage takes the tracked tab the previous owner kept, unless a tab
// was already reported to this server.
func (s *Server) restorePage() {
	p, ok := history.LoadPage(s.cfg.HistoryDir)
	if !ok {
		return
	}
	s.hist.pageSave.Lock()
	defer s.hist.pageSave.Unlock()
	if _, ok := s.store.Page(); !ok {
		s.store.SetPage(p)
	}
}

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
// which the page itself cannot report closed. The worker sends the same on
// its socket while that is open (a page_left frame).
func (s *Server) handlePageLeft(w http.ResponseWriter, r *http.Request) {
	var p PageLeft
	if err := decodeBody(r, &p); err != nil {
		writeProblem(w, err)
		return
	}
	n, err := s.pageLeft(p)
	if err != nil {
		writeProblem(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"closed": n})
}

// pageLeft closes the sockets of p's gone document (POST /page-left, or a
// page_left frame on the worker's socket) and says how many.
func (s *Server) pageLeft(p PageLeft) (int, error) {
	reason, ok := pageLeftReasons[p.Reason]
	if !ok || p.TabID <= 0 {
		return 0, problem.New(problem.InvalidParam, `want {"tab": a tab id, "reason": "reload"|"navigation"|"tab_closed", "ts": ms}`)
	}
	s.publishPageLeft(p)
	s.pageCommitted(p)
	n := s.store.PageLeft(p.TabID, p.TS, reason)
	if n > 0 {
		s.hist.settle()
	}
	return n, nil
}

// pageCommitted dates the tracked tab's page from its new document: a
// reload keeps the URL and title, so the worker reports no new page, and
// observe page would go on giving the first load's ts.
func (s *Server) pageCommitted(p PageLeft) {
	if p.Reason == "tab_closed" || p.TS.IsZero() {
		return
	}
	s.hist.pageSave.Lock() // a report of the new URL cannot come between
	defer s.hist.pageSave.Unlock()
	if cur, ok := s.store.Page(); ok && cur.TabID == p.TabID && p.TS.After(cur.TS.Time) {
		cur.TS = p.TS
		s.store.SetPage(cur)
		s.keepPage()
	}
}
