package server

import (
	"net/http"
	"sync/atomic"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// ingestReply tells the extension what was stored and what was not, so one
// bad entry never costs the good ones in its batch.
type ingestReply struct {
	Accepted int                 `json:"accepted"`
	Rejected []capture.Rejection `json:"rejected,omitempty"`
}

// batch is the body of every capture endpoint. One struct for all keys
// lets the body be decoded in a single pass; each route reads its own key.
type batch[T any] struct {
	Entries []T `json:"entries"`
	Bodies  []T `json:"bodies"`
	Events  []T `json:"events"`
	Actions []T `json:"actions"`
	// Dropped counts events the extension pushed out of its full buffer
	// (while the server was away) and has not reported in an earlier batch.
	Dropped int64 `json:"dropped"`
}

func (b *batch[T]) items(key string) []T {
	switch key {
	case "entries":
		return b.Entries
	case "bodies":
		return b.Bodies
	case "events":
		return b.Events
	}
	return b.Actions
}

// ingest builds the handler of one capture endpoint: a POST of
// {"<key>": [T, ...], "dropped": n} stored through add, n added to lost.
func ingest[T any](key string, add func([]T) (int, []capture.Rejection), lost *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body batch[T]
		if err := decodeBody(r, &body); err != nil {
			writeProblem(w, err)
			return
		}
		items := body.items(key)
		if items == nil {
			writeProblem(w, problem.New(problem.InvalidParam, `missing %q: want {"%s": [...]}`, key, key))
			return
		}
		if err := batchTooBig(len(items), capture.MaxBatch); err != nil {
			writeProblem(w, err)
			return
		}
		n, rej := add(items)
		if body.Dropped > 0 {
			lost.Add(body.Dropped)
		}
		writeJSON(w, http.StatusOK, ingestReply{Accepted: n, Rejected: rej})
	}
}

func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	var p capture.Page
	if err := decodeBody(r, &p); err != nil {
		writeProblem(w, err)
		return
	}
	if p.URL == "" {
		writeProblem(w, problem.New(problem.InvalidParam, "url is required"))
		return
	}
	s.store.SetPage(p)
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}
