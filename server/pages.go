package server

import (
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/history"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// trackedPage is the tab the human tracks (POST /page) and the documents
// that leave it (POST /page-left, navigation.go), kept for the port's next
// owner while the history is open.
type trackedPage struct {
	store  *capture.Store
	events *hub
	hist   *historyState
	dir    string // the history folder
	log    io.Writer
	save   sync.Mutex // orders the tracked tab's writes to history.PageFile
}

func (tp *trackedPage) routes(r routes) {
	r.handle("POST /page", tp.handlePage)
	r.handle("POST /page-left", tp.handleLeft)
}

// set records the tracked tab and keeps it for the port's next owner.
func (tp *trackedPage) set(p capture.Page) {
	tp.save.Lock()
	defer tp.save.Unlock()
	tp.store.SetPage(p)
	tp.keep()
}

// keep writes the tracked tab for the next owner; the caller holds
// pageSave.
func (tp *trackedPage) keep() {
	if tp.hist.log == nil {
		return
	}
	kept, _ := tp.store.Page() // as the store scrubbed it
	if err := history.SavePage(tp.dir, kept); err != nil {
		fmt.Fprintf(tp.log, "gasoline: warning: keep the tracked tab: %v\n", err)
	}
}

// restore takes the tracked tab the previous owner kept, unless a tab
// was already reported to this server.
func (tp *trackedPage) restore() {
	p, ok := history.LoadPage(tp.dir)
	if !ok {
		return
	}
	tp.save.Lock()
	defer tp.save.Unlock()
	if _, ok := tp.store.Page(); !ok {
		tp.store.SetPage(p)
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

// handleLeft closes what the gone document left open: its WebSockets,
// which the page itself cannot report closed. The worker sends the same on
// its socket while that is open (a page_left frame).
func (tp *trackedPage) handleLeft(w http.ResponseWriter, r *http.Request) {
	var p PageLeft
	if err := decodeBody(r, &p); err != nil {
		writeProblem(w, err)
		return
	}
	n, err := tp.left(p)
	if err != nil {
		writeProblem(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"closed": n})
}

// left closes the sockets of p's gone document (POST /page-left, or a
// page_left frame on the worker's socket) and says how many.
func (tp *trackedPage) left(p PageLeft) (int, error) {
	reason, ok := pageLeftReasons[p.Reason]
	if !ok || p.TabID <= 0 {
		return 0, problem.New(problem.InvalidParam, `want {"tab": a tab id, "reason": "reload"|"navigation"|"tab_closed", "ts": ms}`)
	}
	tp.publishLeft(p)
	tp.committed(p)
	n := tp.store.PageLeft(p.TabID, p.TS, reason)
	if n > 0 {
		tp.hist.settle()
	}
	return n, nil
}

// committed dates the tracked tab's page from its new document: a
// reload keeps the URL and title, so the worker reports no new page, and
// observe page would go on giving the first load's ts.
func (tp *trackedPage) committed(p PageLeft) {
	if p.Reason == "tab_closed" || p.TS.IsZero() {
		return
	}
	tp.save.Lock() // a report of the new URL cannot come between
	defer tp.save.Unlock()
	if cur, ok := tp.store.Page(); ok && cur.TabID == p.TabID && p.TS.After(cur.TS.Time) {
		cur.TS = p.TS
		tp.store.SetPage(cur)
		tp.keep()
	}
}

func (tp *trackedPage) handlePage(w http.ResponseWriter, r *http.Request) {
	var p capture.Page
	if err := decodeBody(r, &p); err != nil {
		writeProblem(w, err)
		return
	}
	if p.URL == "" {
		writeProblem(w, problem.New(problem.InvalidParam, "url is required"))
		return
	}
	tp.set(p)
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}
