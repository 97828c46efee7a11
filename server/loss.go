package server

import (
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
func lostHealth(losses *capture.Losses) *wire.Lost {
	total := losses.Total()
	if total == 0 {
		return nil
	}
	l := &wire.Lost{Total: total, ByTab: losses.Totals()}
	for _, g := range losses.Recent(recentLosses) {
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

// lostWithin is the gaps of an observe mode's kind within the time range
// of the entries it answered, as ["12 console entries lost on tab 5
// between …"]; nil while nothing was lost.
func lostWithin(losses *capture.Losses, mode string, p *page) []string {
	kind, ok := lossKinds[mode]
	if !ok || losses.Total() == 0 || p.from.IsZero() {
		return nil
	}
	gaps := losses.Within(kind, p.from, p.to)
	if len(gaps) == 0 {
		return nil
	}
	lines := make([]string, len(gaps))
	for i, g := range gaps {
		lines[i] = g.String()
	}
	return lines
}
