package capture

import (
	"testing"
	"time"
)

// Issue 58 row 15: a socket's close that reached the store before the
// messages 130 ms earlier (the page's leaving sends it at once) is still
// listed after them, newest first by when each happened; the cursor still
// counts what arrived, so nothing that came late is skipped.
func TestWSEventsInTimeOrder(t *testing.T) {
	s := NewStore()
	at := time.Date(2026, 12, 6, 10, 0, 14, 0, time.UTC)
	ev := func(ms int, event, data string) WSEvent {
		return WSEvent{TS: Time{at.Add(time.Duration(ms) * time.Millisecond)}, Event: event, ID: "c1", URL: "ws://x", Direction: "incoming", Data: data, TabID: 1}
	}
	s.AddWSEvents([]WSEvent{ev(0, "open", "")})
	s.AddWSEvents([]WSEvent{{TS: Time{at.Add(300 * time.Millisecond)}, Event: "close", ID: "c1", URL: "ws://x", Code: 1001, TabID: 1}})
	s.AddWSEvents([]WSEvent{ev(170, "message", "a"), ev(175, "message", "b")})
	res := s.WSEvents(Query{})
	var got []string
	for _, e := range res.Entries {
		got = append(got, e.Event+e.Data)
	}
	want := []string{"close", "messageb", "messagea", "open"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v (newest first by time)", got, want)
		}
	}
	if more := s.WSEvents(Query{After: res.Cursor}); len(more.Entries) != 0 {
		t.Fatalf("after the cursor: %v", more.Entries)
	}
}
