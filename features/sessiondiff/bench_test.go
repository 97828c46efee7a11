package sessiondiff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/features/snapshot"
)

// fill brings every buffer a snapshot reads to capacity, with messages that
// give the normaliser work (ids, UUIDs, timestamps, locations).
func fill(s *capture.Store, variant int) {
	var logs []capture.LogEntry
	for i := range capture.LogCap {
		level := [...]string{"error", "warn", "log", "log", "info"}[i%5]
		msg := fmt.Sprintf("TypeError %d: cannot read 'x' of user %d (order 3f2a9c4e-1b2d-4e5f-8a9b-%012d) at 2026-01-20T14:%02d:00Z in https://app.test/static/main.js:%d:7 %s",
			(i+variant)%60, 10000+i, i, i%60, i, strings.Repeat("context ", 12))
		logs = append(logs, capture.LogEntry{Level: level, Message: msg, Page: page})
	}
	s.AddLogs(logs)
	var net []capture.NetworkEntry
	for i := range capture.NetworkCap {
		status := [...]int{200, 200, 201, 304, 404, 500}[(i+variant)%6]
		net = append(net, capture.NetworkEntry{Method: [...]string{"GET", "POST"}[i%2], URL: fmt.Sprintf("http://localhost:3000/api/r%d?page=%d", i%150, i),
			Status: status, DurationMS: float64(i % 700), Page: page})
	}
	s.AddNetwork(net)
	var ws []capture.WSEvent
	for i := range capture.WSEventCap {
		ev := capture.WSEvent{Event: "message", ID: fmt.Sprint(i % capture.WSConnCap), Direction: "incoming", Size: 100}
		if i < capture.WSConnCap {
			ev.Event, ev.URL = "open", fmt.Sprintf("ws://localhost:3000/ws/%d", i)
		}
		ws = append(ws, ev)
	}
	s.AddWSEvents(ws)
}

// BenchmarkCaptureCompareFullBuffers is a capture and a compare against the
// live state, both over full capture buffers: the cost of one diff call.
func BenchmarkCaptureCompareFullBuffers(b *testing.B) {
	store := capture.NewStore()
	store.SetPage(capture.Page{TabID: 1, URL: page})
	cls := 0.1
	perf := func(string) (perf.Performance, bool) {
		return perf.Performance{LoadTime: 1100, FCP: 300, LCP: 900, CLS: &cls, RequestCount: 40, TransferSize: 1 << 20}, true
	}
	s := New(snapshot.NewReader(store, perf, nil))
	fill(store, 0)
	if _, err := s.Do(Request{Action: "capture", Name: "base"}); err != nil {
		b.Fatal(err)
	}
	fill(store, 1)
	for b.Loop() {
		if _, err := s.Do(Request{Action: "capture", Name: "now"}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Do(Request{Action: "compare", Name: "base"}); err != nil {
			b.Fatal(err)
		}
	}
}
