package streaming

import (
	"slices"
	"time"
)

// The fixed throttle parameters of the spec, and the bounds of what waits.
const (
	RatePerMinute = 12
	DedupWindow   = 30 * time.Second
	BatchWindow   = 2 * time.Second
	// MaxPending is how many distinct events one notification carries; more
	// arriving while the throttle or rate cap holds them are counted as dropped.
	MaxPending = 10
	dedupCap   = 256
)

// state is everything an enabled streamer holds; a new one on every enable.
type state struct {
	// throttle
	pending    []Event
	batchStart time.Time // when the first pending event arrived
	dropped    int
	lastSent   time.Time
	sent       [RatePerMinute]time.Time // ring of the latest send times
	sentN      int
	sentNext   int
	dedup      *fifo[key, time.Time] // event key → when last sent

	// filters
	seenErrors *fifo[string, struct{}]
	endpoints  *fifo[endpoint, int] // method + URL → last status
	secrets    *fifo[key, struct{}] // credentials already reported
	clicks     *fifo[string, clickRun]
	responses  *fifo[int, time.Time] // tab → newest response or navigation
	submits    []submit
}

func newState() *state {
	return &state{
		dedup:      newFIFO[key, time.Time](dedupCap),
		seenErrors: newFIFO[string, struct{}](seenErrorCap),
		endpoints:  newFIFO[endpoint, int](endpointCap),
		secrets:    newFIFO[key, struct{}](endpointCap),
		clicks:     newFIFO[string, clickRun](selectorCap),
		responses:  newFIFO[int, time.Time](tabCap),
	}
}

// admit reports whether an event is news: not sent within the dedup window
// and not already waiting (a repeat of a waiting one counts on it). Filters
// ask before building the event, so a repeat costs no allocation.
func (st *state) admit(k key, now time.Time) bool {
	if t, ok := st.dedup.get(k); ok && now.Sub(t) < DedupWindow {
		return false
	}
	for i := range st.pending {
		if p := &st.pending[i]; p.key == k {
			p.Count = max(p.Count, 1) + 1
			return false
		}
	}
	return true
}

// add queues an admitted event for the next notification; it reports
// whether the due time may have changed.
func (st *state) add(e Event, now time.Time) bool {
	if len(st.pending) >= MaxPending {
		// Full: an error displaces the newest warning; otherwise the newcomer goes.
		st.dropped++
		j := -1
		for k := len(st.pending) - 1; k >= 0 && e.Severity == SeverityError; k-- {
			if st.pending[k].Severity != SeverityError {
				j = k
				break
			}
		}
		if j < 0 {
			return false
		}
		st.pending = slices.Delete(st.pending, j, j+1)
	}
	if len(st.pending) == 0 {
		st.batchStart = now
	}
	st.pending = append(st.pending, e)
	return true
}

// due is when the pending batch may go: its batch window closed, the
// throttle gap since the last notification past, and room under the rate cap.
func (st *state) due(throttle time.Duration) time.Time {
	t := st.batchStart.Add(BatchWindow)
	if g := st.lastSent.Add(throttle); g.After(t) {
		t = g
	}
	if st.sentN == RatePerMinute {
		if r := st.sent[st.sentNext].Add(time.Minute); r.After(t) {
			t = r
		}
	}
	return t
}

// take returns the pending batch as one notification if it is due.
func (st *state) take(now time.Time, throttle time.Duration) *Notification {
	if len(st.pending) == 0 || now.Before(st.due(throttle)) {
		return nil
	}
	n := notification(st.pending, st.dropped)
	for _, e := range st.pending {
		st.dedup.put(e.key, now, cloneKey)
	}
	st.pending, st.dropped = nil, 0 // n keeps the old slice
	st.lastSent = now
	st.sent[st.sentNext] = now
	st.sentNext = (st.sentNext + 1) % RatePerMinute
	st.sentN = min(st.sentN+1, RatePerMinute)
	return n
}

// next is when Tick has something to do: the batch falls due or a form
// submit times out. Zero when nothing waits.
func (st *state) next(throttle time.Duration) time.Time {
	var t time.Time
	if len(st.pending) > 0 {
		t = st.due(throttle)
	}
	for _, sb := range st.submits {
		if t.IsZero() || sb.deadline.Before(t) {
			t = sb.deadline
		}
	}
	return t
}
