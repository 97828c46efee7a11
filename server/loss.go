package server

import (
	"encoding/json"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// sequenced notes each entry's place in its page's sequence (capture.Losses)
// under kind, then clears it, before add stores the batch: the stored entry
// is what the page captured. kind "" clears without counting (a body's
// number is its request's, counted as network).
func sequenced[T any, P interface {
	*T
	Sequenced() (int, time.Time, *string, *int64)
}](s *Server, kind string, add func([]T) (int, []capture.Rejection)) func([]T) (int, []capture.Rejection) {
	return func(items []T) (int, []capture.Rejection) {
		for i := range items {
			if k, ok := any(P(&items[i])).(interface{ KeepPlace() }); ok {
				k.KeepPlace() // an action keeps it for ordering (capture.Action.Order)
			}
			tab, ts, doc, n := P(&items[i]).Sequenced()
			if kind != "" {
				s.losses.Note(kind, tab, ts, *doc, *n)
			}
			*doc, *n = "", 0
		}
		return add(items)
	}
}

// recentLosses is how many gaps health says in words.
const recentLosses = 5

// lostHealth is health's account of what was lost, nil when nothing was.
func (s *Server) lostHealth() *wire.Lost {
	total := s.losses.Total()
	if total == 0 {
		return nil
	}
	l := &wire.Lost{Total: total, ByTab: s.losses.Totals()}
	for _, g := range s.losses.Recent(recentLosses) {
		l.Recent = append(l.Recent, g.String())
	}
	return l
}

// lossKinds is the sequence kind each observe mode reads.
var lossKinds = map[string]string{
	"logs":             "log",
	"errors":           "log",
	"network":          "network",
	"network_bodies":   "network",
	"websocket_events": "ws",
	"actions":          "action",
}

// withLoss adds to an observe result over a range of entries the gaps of
// its kind within that range, as "lost": ["12 console entries lost on tab
// 5 between …"]. Nothing is added (nor re-encoded) while nothing was lost.
func (s *Server) withLoss(mode string, v any) (any, error) {
	kind, ok := lossKinds[mode]
	if !ok || s.losses.Total() == 0 {
		return v, nil
	}
	obj, err := fields(v)
	if err != nil {
		return v, nil
	}
	from, to, ok := entriesRange(obj)
	if !ok {
		return v, nil
	}
	gaps := s.losses.Within(kind, from, to)
	if len(gaps) == 0 {
		return v, nil
	}
	lines := make([]string, len(gaps))
	for i, g := range gaps {
		lines[i] = g.String()
	}
	obj["lost"], _ = json.Marshal(lines)
	return obj, nil
}

// fields is a result's top-level fields, for a field added after the
// result was built (lost, alerts).
func fields(v any) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// entriesRange is the time range of a result's entries.
func entriesRange(obj map[string]json.RawMessage) (from, to time.Time, ok bool) {
	var es []struct {
		TS capture.Time `json:"ts"`
	}
	_ = json.Unmarshal(obj["entries"], &es)
	for _, e := range es {
		t := e.TS.Time
		if t.IsZero() {
			continue
		}
		if !ok || t.Before(from) {
			from = t
		}
		if !ok || t.After(to) {
			to = t
		}
		ok = true
	}
	return from, to, ok
}
