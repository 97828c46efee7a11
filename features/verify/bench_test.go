package verify

import (
	"fmt"
	"testing"

	"github.com/gasoline-dev/gasoline/features/snapshot"
)

// full is a snapshot at its limits: MaxConsole distinct errors and
// MaxNetwork endpoints, half of them failing; shift makes b differ from a.
func full(shift int) *snapshot.Snapshot {
	s := &snapshot.Snapshot{Events: 1, Requests: snapshot.MaxNetwork}
	for i := range snapshot.MaxConsole {
		s.Errors = append(s.Errors, snapshot.Issue{Message: fmt.Sprintf("TypeError: cannot read 'x%d' of undefined", i+shift), Count: 1 + i%3})
	}
	for i := range snapshot.MaxNetwork {
		s.Endpoints = append(s.Endpoints, snapshot.Endpoint{Method: "GET", URL: fmt.Sprintf("/api/r%d", i+shift), Status: []int{200, 500}[(i+shift)%2], DurationMS: i})
	}
	return s
}

// BenchmarkCompareFull is compare's own work on two full snapshots (taking
// them is BenchmarkCaptureCompareFullBuffers in features/sessiondiff).
func BenchmarkCompareFull(b *testing.B) {
	a, after := full(0), full(25)
	for b.Loop() {
		if res, _ := Compare(a, after); res == nil {
			b.Fatal("no result")
		}
	}
}
