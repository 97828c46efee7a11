package pilot

import (
	"sync"
	"time"
)

// windowsKept bounds the AI's action windows remembered: the newest only,
// enough for a capture's records to arrive after their action ended.
const windowsKept = 64

// windowGrace covers a record stamped just after its action's answer (a
// page load the action began, stamped as its document starts).
const windowGrace = 500 * time.Millisecond

type window struct {
	tab      int
	from, to time.Time // to is zero while the action runs
}

// Windows are the times the AI's actions held each tab. A page load the
// capture records in one was the AI's doing: the new document cannot know
// it, the server does. Safe for concurrent use.
type Windows struct {
	mu   sync.Mutex
	list []window // oldest first
}

// Open marks the start of an action on tab; close ends it.
func (w *Windows) Open(tab int, now time.Time) (close func(time.Time)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.list) == windowsKept {
		w.list = w.list[1:]
	}
	w.list = append(w.list, window{tab: tab, from: now})
	i := len(w.list) - 1
	from := now
	return func(end time.Time) {
		w.mu.Lock()
		defer w.mu.Unlock()
		for j := min(i, len(w.list)-1); j >= 0; j-- {
			if w.list[j].tab == tab && w.list[j].from.Equal(from) {
				w.list[j].to = end
				return
			}
		}
	}
}

// Covers says whether ts falls in an action of the AI on tab.
func (w *Windows) Covers(tab int, ts time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, x := range w.list {
		if x.tab == tab && !ts.Before(x.from) && (x.to.IsZero() || !ts.After(x.to.Add(windowGrace))) {
			return true
		}
	}
	return false
}
