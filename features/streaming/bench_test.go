package streaming

import (
	"fmt"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// BenchmarkObserve is the cost every ingested entry pays, as the store's
// Subscribe delivers it. Off: one atomic load. On: the filters, for the
// entries a busy page makes most (2xx responses, console logs, clicks) and
// for a repeating 5xx that dedup keeps from the AI.
func BenchmarkObserve(b *testing.B) {
	entry := func(kind string, e any) capture.Event { return capture.Event{Kind: kind, Seq: 1, Entry: e} }
	cases := []struct {
		name string
		on   bool
		ev   capture.Event
	}{
		{"off", false, entry(capture.KindNetwork, req(0, "GET", "http://localhost:3000/api/users?page=2", 200))},
		{"on/network_2xx", true, entry(capture.KindNetwork, req(0, "GET", "http://localhost:3000/api/users?page=2", 200))},
		{"on/console_log", true, entry(capture.KindLogs, capture.LogEntry{TS: at(0), Level: "log", Message: "rendered 20 rows"})},
		{"on/click", true, entry(capture.KindActions, click(0, "#row-7 > button.edit"))},
		{"on/network_5xx_repeat", true, entry(capture.KindNetwork, req(0, "POST", "http://localhost:3000/api/users", 500))},
		{"on/console_error_repeat", true, entry(capture.KindLogs, consoleErr(0, "TypeError: cannot read 'id' of undefined"))},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			s := New(Options{Secrets: fakeSecrets})
			if _, err := s.Configure(Update{Enabled: ptr(tc.on)}); err != nil {
				b.Fatal(err)
			}
			s.ObserveEvent(tc.ev) // a repeat is what the loop measures
			b.ReportAllocs()
			for b.Loop() {
				s.ObserveEvent(tc.ev)
			}
		})
	}
}

// BenchmarkTick is the driver loop's cost with a full batch waiting.
func BenchmarkTick(b *testing.B) {
	s := New(Options{})
	s.Configure(Update{Enabled: ptr(true)})
	for i := range MaxPending {
		s.Observe(req(0, "GET", fmt.Sprintf("http://localhost:3000/api/%d", i), 500))
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Tick(t0)
	}
}
