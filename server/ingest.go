package server

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

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

// storeFunc stores one capture batch: the body of a POST to its route, or
// of an "events" frame on the extension's socket (extension_ws.go). release
// is called once the batch is decoded, so that its ingest slot may go to the
// next batch while this one settles.
type storeFunc func(body []byte, release func()) (ingestReply, error)

// storeBatch builds the storeFunc of one capture route: a batch of
// {"<key>": [T, ...], "dropped": n} stored through add, n added to the
// extension's dropped count. The batch is decoded in one pass; only when
// an entry has a value of the wrong type is it decoded again entry by
// entry, so that entry alone is rejected. It returns once the history has
// written the batch (see settle).
func storeBatch[T any](s *Server, key string, add func([]T) (int, []capture.Rejection)) storeFunc {
	lost := &s.ext.dropped
	return func(b []byte, release func()) (ingestReply, error) {
		var body batch[T]
		var items []T
		var idx []int // idx[i] is where items[i] was in the batch; nil: in place
		var rejected []capture.Rejection
		err := jsonv2.Unmarshal(b, &body, decodeOpts)
		var sem *jsonv2.SemanticError
		switch {
		case errors.As(err, &sem):
			var perr error
			if items, idx, rejected, body.Dropped, perr = perEntry[T](b, key); perr == nil {
				err = nil
			}
		case err == nil:
			items = body.items(key)
		}
		if err != nil {
			return ingestReply{}, jsonProblem(err)
		}
		if items == nil && idx == nil {
			return ingestReply{}, problem.New(problem.InvalidParam, `missing %q: want {"%s": [...]}`, key, key)
		}
		if err := batchTooBig(len(items)+len(rejected), capture.MaxBatch); err != nil {
			return ingestReply{}, err
		}
		n, rej := add(items)
		if body.Dropped > 0 {
			lost.Add(body.Dropped)
		}
		release() // the batch is decoded: the next may be, while this one settles
		s.hist.settle()
		if idx != nil {
			for i := range rej {
				rej[i].Index = idx[rej[i].Index]
			}
			rej = append(rej, rejected...)
			slices.SortFunc(rej, func(a, b capture.Rejection) int { return a.Index - b.Index })
		}
		return ingestReply{Accepted: n, Rejected: rej}, nil
	}
}

// ingest is the handler of a capture endpoint. A batch waits for an ingest
// slot before its body is read.
func (s *Server) ingest(store storeFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		release, err := s.ingestSlot(r.Context())
		if err != nil {
			writeProblem(w, err)
			return
		}
		defer release()
		buf := bodies.Get().(*bytes.Buffer)
		defer func() {
			if buf.Cap() <= keepBuffer {
				bodies.Put(buf)
			}
		}()
		buf.Reset()
		if _, err := buf.ReadFrom(r.Body); err != nil {
			writeProblem(w, jsonProblem(err))
			return
		}
		reply, err := store(buf.Bytes(), release)
		if err != nil {
			writeProblem(w, err)
			return
		}
		writeJSON(w, http.StatusOK, reply)
	}
}

// ingestSlot waits for one of the ingest slots (at most slotWait) and
// returns what gives it back, once however often it is called; or
// rate_limited.
func (s *Server) ingestSlot(ctx context.Context) (release func(), err error) {
	if !acquire(ctx, s.in.slots) {
		return nil, problem.New(problem.RateLimited, "the server is busy storing other batches; retry")
	}
	held := true
	return func() {
		if held {
			held = false
			<-s.in.slots
		}
	}, nil
}

// ingestSlots bounds the batches decoded at once: a 5 MB body decodes to
// about three times its size, so 16 senders at once would need ~250 MB.
// The others wait (their bodies unread, held back by TCP) up to slotWait.
const ingestSlots = 2

// slotWait is how long a batch waits for a slot before it is refused.
const slotWait = 10 * time.Second

func acquire(ctx context.Context, slots chan struct{}) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(slotWait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// bodies recycles request buffers: ingest is the hot path. A buffer grown
// past keepBuffer by a large batch is left to the collector, not kept.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const keepBuffer = 256 << 10

// perEntry decodes a batch whose entries do not all have the right types:
// the well-typed ones, where each was in the batch, a rejection for each of
// the others, and the batch's dropped count (the first decode stopped
// before it). An error means the batch itself is malformed.
func perEntry[T any](body []byte, key string) (items []T, idx []int, rejected []capture.Rejection, dropped int64, err error) {
	var raw batch[jsontext.Value]
	if err := jsonv2.Unmarshal(body, &raw, decodeOpts); err != nil {
		return nil, nil, nil, 0, err
	}
	entries := raw.items(key)
	if entries == nil {
		return nil, nil, nil, raw.Dropped, nil
	}
	idx = make([]int, 0, len(entries))
	for i, v := range entries {
		var t T
		if err := jsonv2.Unmarshal(v, &t, decodeOpts); err != nil {
			rejected = append(rejected, capture.Rejection{Index: i, Error: jsonProblem(err).Message})
			continue
		}
		items = append(items, t)
		idx = append(idx, i)
	}
	return items, idx, rejected, raw.Dropped, nil
}
