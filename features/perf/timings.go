package perf

import (
	"time"
)

// MaxTimings bounds the page loads whose timings the store keeps apart from
// the newest sample per page: a HAR gives each load its own, also a page's
// earlier loads. About 100 bytes each.
const MaxTimings = 64

// LoadTimings is one page load's DOMContentLoaded and load event, in
// milliseconds from Start, when its navigation started (0: not measured).
type LoadTimings struct {
	Tab              int
	URL              string
	Start            time.Time
	DOMContentLoaded float64
	Load             float64
}

// keepTimings notes a load's timings, once per load (its URL, tab and
// start), the oldest forgotten past MaxTimings. The caller holds the lock.
func (s *Store) keepTimings(smp *Sample) {
	start := smp.Origin.Time
	if start.IsZero() {
		return // an older extension's sample: its times count from nothing known
	}
	lt := LoadTimings{Tab: smp.TabID, URL: smp.URL, Start: start, DOMContentLoaded: smp.DOMContentLoaded, Load: smp.LoadTime}
	for i := range s.timings {
		if t := &s.timings[i]; t.Tab == lt.Tab && t.URL == lt.URL && t.Start.Equal(start) {
			*t = lt
			return
		}
	}
	s.timings = append(s.timings, lt)
	if len(s.timings) > MaxTimings {
		s.timings = s.timings[len(s.timings)-MaxTimings:]
	}
}

// Timings lists the page loads' timings held, oldest first.
func (s *Store) Timings() []LoadTimings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]LoadTimings(nil), s.timings...)
}
