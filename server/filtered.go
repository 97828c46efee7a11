package server

import (
	"slices"
	"sync"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// The console calls a page did not capture because of log_level (the
// default, error, leaves out warn, info, log and debug) are counted by the
// page and reported as entries of kind "filtered" in /logs, so that
// observe logs can say that entries are missing and which setting left
// them out, instead of looking complete.

// filteredKind is the kind of a /logs entry that reports counts.
const filteredKind = "filtered"

// filteredLevels are the levels a page may report as not captured.
var filteredLevels = []string{"debug", "log", "info", "warn"}

// filteredCounts holds what was not captured since the server started or
// the logs were last cleared.
type filteredCounts struct {
	mu      sync.Mutex
	by      map[string]int64
	setting string // the log_level the newest report named
}

// add takes one report; counts past a sane bound or of unknown levels are
// ignored (the page is not trusted).
func (f *filteredCounts) add(e capture.LogEntry) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for lvl, n := range e.Filtered {
		if n <= 0 || n > 1<<20 || !slices.Contains(filteredLevels, lvl) {
			continue
		}
		if f.by == nil {
			f.by = map[string]int64{}
		}
		f.by[lvl] += int64(n)
	}
	if slices.Contains([]string{"error", "warn", "all"}, e.Message) {
		f.setting = e.Message
	}
}

func (f *filteredCounts) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.by = nil
}

// view is observe logs' "filtered": {"log_level":"error","warn":3}, nil
// when nothing was left out.
func (f *filteredCounts) view() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.by) == 0 {
		return nil
	}
	out := map[string]any{"log_level": f.setting}
	for lvl, n := range f.by {
		out[lvl] = n
	}
	return out
}

// divert counts the reports among a /logs batch and passes the
// rest on to add (the store): a report is never a console entry.
func (f *filteredCounts) divert(add func([]capture.LogEntry) (int, []capture.Rejection)) func([]capture.LogEntry) (int, []capture.Rejection) {
	return func(items []capture.LogEntry) (int, []capture.Rejection) {
		if !slices.ContainsFunc(items, func(e capture.LogEntry) bool { return e.Kind == filteredKind }) {
			return add(items)
		}
		kept := make([]capture.LogEntry, 0, len(items))
		n := 0
		for _, e := range items {
			if e.Kind == filteredKind {
				f.add(e)
				n++
				continue
			}
			kept = append(kept, e)
		}
		stored, rej := add(kept)
		return stored + n, rej
	}
}
