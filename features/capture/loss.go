package capture

import (
	"fmt"
	"sort"
	"sync"
	"time"
)

// Losses counts what was lost between a page and the server. Every entry
// the content script forwards carries its document's key (dc) and its
// number among that document's entries of its kind (sq: 1, 2, …, given
// once an event passed the capture gate, PROTOCOL.md "Sequence numbers").
// A number that skips some within a document the server already follows is
// a loss of that many. A document the server has not seen starts wherever
// its first number is: a new document starts at 1, and a server restarted
// mid-document would otherwise count what its predecessor stored as lost.
// A number at or below the last one (a retried batch, a late one) is never
// a loss. Entries without a sequence (an older extension, what a page left
// before its content script came) are not followed.
type Losses struct {
	mu     sync.Mutex
	docs   map[seqKey]seqAt
	order  []seqKey // the documents followed, oldest first (forgotten first)
	gaps   []Gap    // the newest maxGaps, oldest first
	totals map[tabKind]int64
	total  int64
}

// Gap is one run of entries lost: Lost of them, of Kind, on Tab, between
// From (the last entry before) and To (the first after).
type Gap struct {
	Tab  int       `json:"tab"`
	Kind string    `json:"kind"`
	Lost int64     `json:"lost"`
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// LossTotal is what was lost of one kind on one tab since the server
// started.
type LossTotal struct {
	Tab  int    `json:"tab"`
	Kind string `json:"kind"`
	Lost int64  `json:"lost"`
}

type seqKey struct{ kind, doc string }

type seqAt struct {
	n  int64
	ts time.Time
}

type tabKind struct {
	tab  int
	kind string
}

const (
	maxDocs   = 4096 // documents followed at once, per kind
	maxGaps   = 256  // gaps kept to report
	maxDocKey = 32   // bytes of a document key; a longer one is not followed
	maxTotals = 256  // tabs and kinds counted apart; the others count under tab 0
)

// NewLosses is an empty account.
func NewLosses() *Losses {
	return &Losses{docs: map[seqKey]seqAt{}, totals: map[tabKind]int64{}}
}

// Note takes one entry's place in its document's sequence of kind.
func (l *Losses) Note(kind string, tab int, ts time.Time, doc string, n int64) {
	if doc == "" || n <= 0 || len(doc) > maxDocKey {
		return
	}
	k := seqKey{kind, doc}
	l.mu.Lock()
	defer l.mu.Unlock()
	last, ok := l.docs[k]
	switch {
	case !ok:
		l.order = append(l.order, k)
		if len(l.order) > maxDocs*len(lossNouns) {
			delete(l.docs, l.order[0])
			l.order = l.order[1:]
		}
	case n <= last.n:
		return
	case n > last.n+1:
		g := Gap{Tab: tab, Kind: kind, Lost: n - last.n - 1, From: last.ts, To: ts}
		l.gaps = append(l.gaps, g)
		if len(l.gaps) > maxGaps {
			l.gaps = l.gaps[len(l.gaps)-maxGaps:]
		}
		tk := tabKind{tab, kind}
		if _, known := l.totals[tk]; !known && len(l.totals) >= maxTotals {
			tk.tab = 0 // tab 0: the tabs past the bound
		}
		l.totals[tk] += g.Lost
		l.total += g.Lost
	}
	l.docs[k] = seqAt{n, ts}
}

// Count takes a loss known as a number rather than a skipped sequence
// number: what a bound left out of one entry's rows.
func (l *Losses) Count(g Gap) {
	if g.Lost <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gaps = append(l.gaps, g)
	if len(l.gaps) > maxGaps {
		l.gaps = l.gaps[len(l.gaps)-maxGaps:]
	}
	tk := tabKind{g.Tab, g.Kind}
	if _, known := l.totals[tk]; !known && len(l.totals) >= maxTotals {
		tk.tab = 0
	}
	l.totals[tk] += g.Lost
	l.total += g.Lost
}

// Total is how many entries were lost since the server started.
func (l *Losses) Total() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// Totals is what was lost per tab and kind, by tab then kind.
func (l *Losses) Totals() []LossTotal {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]LossTotal, 0, len(l.totals))
	for k, n := range l.totals {
		out = append(out, LossTotal{k.tab, k.kind, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tab != out[j].Tab {
			return out[i].Tab < out[j].Tab
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// Recent is the newest n gaps, oldest first.
func (l *Losses) Recent(n int) []Gap {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.gaps) < n {
		n = len(l.gaps)
	}
	return append([]Gap(nil), l.gaps[len(l.gaps)-n:]...)
}

// Within is the gaps of kind whose time overlaps [from, to], oldest first.
func (l *Losses) Within(kind string, from, to time.Time) []Gap {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Gap
	for _, g := range l.gaps {
		if g.Kind == kind && !g.To.Before(from) && !g.From.After(to) {
			out = append(out, g)
		}
	}
	return out
}

// lossNouns name each kind's entries as a person reads them.
var lossNouns = map[string][2]string{
	"log":     {"console entry", "console entries"},
	"network": {"network request", "network requests"},
	"body":    {"network body", "network bodies"},
	"ws":      {"WebSocket event", "WebSocket events"},
	"action":  {"action", "actions"},
	// A page load's resource timing rows past the bounds (features/perf).
	"resource": {"resource timing entry", "resource timing entries"},
	// A later update of a page load's INP, CLS or LCP for a load not held.
	"vitals": {"Web Vitals update", "Web Vitals updates"},
}

// String says the gap as a person reads it: "12 console entries lost on
// tab 5 between 21:04:03Z and 21:04:04Z", or "at 21:04:03Z" within a second.
func (g Gap) String() string {
	noun, ok := lossNouns[g.Kind]
	if !ok {
		noun = [2]string{g.Kind + " entry", g.Kind + " entries"}
	}
	n := noun[1]
	if g.Lost == 1 {
		n = noun[0]
	}
	const hms = "15:04:05Z07:00"
	from, to := g.From.UTC().Format(hms), g.To.UTC().Format(hms)
	if from == to { // "between 05:36:56Z and 05:36:56Z" reads as a range that is not one
		return fmt.Sprintf("%d %s lost on tab %d at %s", g.Lost, n, g.Tab, from)
	}
	return fmt.Sprintf("%d %s lost on tab %d between %s and %s", g.Lost, n, g.Tab, from, to)
}
