package server

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// ingestReply tells the extension what was stored and what was not, so one
// bad entry never costs the good ones in its batch.
type ingestReply struct {
	Accepted int                 `json:"accepted"`
	Rejected []capture.Rejection `json:"rejected,omitempty"`
}

// ingest builds the handler of one capture endpoint: a POST of
// {"<key>": [T, ...]} stored through add.
func ingest[T any](key string, add func([]T) (int, []capture.Rejection)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body map[string]json.RawMessage
		if err := decodeBody(r, &body); err != nil {
			writeProblem(w, err)
			return
		}
		raw, ok := body[key]
		if !ok || bytes.Equal(raw, []byte("null")) {
			writeProblem(w, problem.New(problem.InvalidParam, `missing %q: want {"%s": [...]}`, key, key))
			return
		}
		var items []T
		if err := json.Unmarshal(raw, &items); err != nil {
			p := jsonProblem(err)
			p.Message = key + ": " + p.Message
			writeProblem(w, p)
			return
		}
		if err := batchTooBig(len(items), capture.MaxBatch); err != nil {
			writeProblem(w, err)
			return
		}
		n, rej := add(items)
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
