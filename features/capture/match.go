package capture

import "time"

// BodyWindow is how far apart in time a request's waterfall entry and its
// captured body may be and still be paired: both come from the same fetch,
// reported by different hooks.
const BodyWindow = 2 * time.Second

// BodyFor returns the index of the body in bodies captured for request e
// (same method and URL, statuses agreeing when both are known, nearest in
// time within BodyWindow), or -1. used, when not nil, says which bodies
// another request already took.
func BodyFor(e NetworkEntry, bodies []NetworkBody, used []bool) int {
	best, gap := -1, BodyWindow+1
	for i := range bodies {
		b := &bodies[i]
		if (used != nil && used[i]) || b.Method != e.Method || b.URL != e.URL ||
			(b.Status != 0 && e.Status != 0 && b.Status != e.Status) {
			continue
		}
		d := b.TS.Sub(e.TS.Time)
		if d < 0 {
			d = -d
		}
		if d < gap {
			best, gap = i, d
		}
	}
	return best
}
