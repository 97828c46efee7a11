package streaming

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// A session on its own tab hears of that tab only; an entry of no known tab
// concerns every session.
func TestOnlyTheTabsThatConcernTheSession(t *testing.T) {
	r := newRig(t, Update{})
	r.s.concerns = func(tab int) bool { return tab == 7 }
	r.at(0,
		capture.LogEntry{TS: capture.Time{Time: t0}, Level: "error", Message: "mine", TabID: 7},
		capture.LogEntry{TS: capture.Time{Time: t0}, Level: "error", Message: "another agent's", TabID: 8},
		capture.LogEntry{TS: capture.Time{Time: t0}, Level: "error", Message: "no tab said"},
		capture.NetworkEntry{TS: capture.Time{Time: t0}, Method: "GET", URL: "http://x/api/theirs", Status: 500, TabID: 8},
	)
	r.until(time.Minute)
	got := r.messages()
	if len(got) != 2 || !slices.ContainsFunc(got, func(m string) bool { return strings.Contains(m, "mine") }) {
		t.Fatalf("heard %q, want the errors of tab 7 and of no tab", got)
	}
	for _, m := range got {
		if strings.Contains(m, "another") || strings.Contains(m, "theirs") {
			t.Fatalf("heard another tab's %q", m)
		}
	}
}
