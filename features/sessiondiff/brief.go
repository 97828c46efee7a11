package sessiondiff

import "fmt"

// Brief is a result in one line, for the audit log.
type Brief interface{ Brief() string }

// Brief implements Brief.
func (r *CaptureResult) Brief() string {
	s := fmt.Sprintf("captured %s: %d console errors, %d requests", r.Name, r.Snapshot.ConsoleErrors, r.Snapshot.NetworkRequests)
	if r.Evicted != "" {
		s += ", evicted " + r.Evicted
	}
	return s
}

// Brief implements Brief.
func (r *CompareResult) Brief() string {
	s := r.Summary
	return fmt.Sprintf("%s vs %s: %s (%d new errors, %d resolved, %d new network errors, %d performance regressions, %d slower endpoints)",
		r.A, r.B, s.Verdict, s.NewErrors, s.ResolvedErrors, s.NewNetworkErrors, s.PerformanceRegressions, s.SlowerEndpoints)
}

// Brief implements Brief.
func (r *ListResult) Brief() string { return fmt.Sprintf("%d snapshots", len(r.Snapshots)) }

// Brief implements Brief.
func (r *DeleteResult) Brief() string { return "deleted " + r.Name }
