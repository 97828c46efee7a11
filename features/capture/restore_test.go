package capture

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// exported is what a history keeps: each stored entry, per buffer it is in.
type exported struct {
	kind string
	seq  uint64
	data []byte
}

func recordAll(s *Store) *[]exported {
	var out []exported
	s.Subscribe(func(e Event) {
		b, _ := json.Marshal(e.Entry)
		for _, k := range e.Buffers() {
			out = append(out, exported{k, e.Seq, b})
		}
	})
	return &out
}

// A store fed what a previous one stored (by buffer, oldest first) answers
// as it did, with the same cursors, and goes on numbering above them.
func TestImportRestoresBuffersAndCursors(t *testing.T) {
	old := NewStore()
	saved := recordAll(old)
	old.AddLogs([]LogEntry{{Level: "log", Message: "a", TS: ts(1)}, {Level: "error", Message: "b", TS: ts(2)}})
	mid := old.Logs(Query{}).Cursor
	old.AddNetwork([]NetworkEntry{{Method: "GET", URL: "http://x/api", Status: 500, TS: ts(3)}})
	old.AddWSEvents([]WSEvent{{Event: "open", ID: "w", URL: "ws://x", TS: ts(4)}, {Event: "message", ID: "w", Direction: "incoming", Data: "hi", TS: ts(5)}})
	old.AddBodies([]NetworkBody{{Method: "GET", URL: "http://x/api", ResponseBody: "ok", TS: ts(6)}})
	old.AddActions([]Action{{Type: "click", Selector: "#go", TS: ts(7)}})
	last := old.Logs(Query{}).Cursor

	s := newStoreAt(time.Now().Add(time.Second)) // a later process
	for _, e := range *saved {
		if err := s.Import(e.kind, e.seq, e.data); err != nil {
			t.Fatal(err)
		}
	}
	s.Resume(last)
	same := func(a, b any) {
		t.Helper()
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("restored %s\nwant     %s", ja, jb)
		}
	}
	same(s.Logs(Query{}).Entries, old.Logs(Query{}).Entries)
	same(s.Errors(Query{}).Entries, old.Errors(Query{}).Entries)
	same(s.Network(Query{}).Entries, old.Network(Query{}).Entries)
	same(s.Bodies(Query{}).Entries, old.Bodies(Query{}).Entries)
	same(s.WSEvents(Query{}).Entries, old.WSEvents(Query{}).Entries)
	same(s.WSConnections(Query{}), old.WSConnections(Query{}))
	same(s.Actions(Query{}).Entries, old.Actions(Query{}).Entries)

	// The old server's cursor still means "after b".
	r := s.Logs(Query{After: mid})
	if len(r.Entries) != 0 || r.Reset {
		t.Fatalf("after the old cursor: %+v", r)
	}
	s.AddLogs([]LogEntry{{Level: "error", Message: "c"}})
	r = s.Errors(Query{After: mid})
	if len(r.Entries) != 1 || r.Entries[0].Message != "c" || r.Reset || r.Cursor <= last {
		t.Fatalf("new entry after the old cursor: %+v", r)
	}
}

// A cursor the new store cannot honour says so: one from a previous server
// past what was restored, or one ahead of anything this store numbered.
func TestCursorFromAPreviousServerIsReset(t *testing.T) {
	start := time.Now()
	s := newStoreAt(start)
	restored := uint64(start.Add(-time.Minute).UnixMicro())
	s.Resume(restored)
	s.AddLogs([]LogEntry{{Level: "log", Message: "new"}})
	for _, c := range []struct {
		after uint64
		reset bool
		n     int
	}{
		{0, false, 1},
		{restored, false, 1},
		{restored - 5, false, 1},
		{restored + 5, true, 1}, // the old server's end was not kept
		{s.seq, false, 0},
		{s.seq + 1000, true, 1}, // from no server this one follows
	} {
		r := s.Logs(Query{After: c.after})
		if r.Reset != c.reset || len(r.Entries) != c.n {
			t.Errorf("after %d: reset %v, %d entries; want %v, %d", c.after, r.Reset, len(r.Entries), c.reset, c.n)
		}
	}
}

// What is read back is sanitised again: a damaged or planted file cannot
// put a secret or an oversized entry in front of the AI.
func TestImportSanitises(t *testing.T) {
	s := NewStore()
	raw := `{"ts":"2026-01-01T00:00:00.000Z","method":"get","url":"https://api.test/x?access_token=S1","response_body":"` +
		strings.Repeat("b", MaxResponseBody+100) + `"}`
	if err := s.Import(KindBodies, 5, []byte(raw)); err != nil {
		t.Fatal(err)
	}
	b := s.Bodies(Query{}).Entries[0]
	if strings.Contains(b.URL, "S1") || len(b.ResponseBody) > MaxResponseBody || b.Method != "GET" {
		t.Fatalf("imported %s %s, %d bytes", b.Method, b.URL, len(b.ResponseBody))
	}
	if err := s.Import(KindLogs, 6, []byte(`{"level":"loud","message":"x"}`)); err == nil {
		t.Fatal("an invalid level was imported")
	}
	if err := s.Import(KindBodies, 4, []byte(raw)); err == nil {
		t.Fatal("an entry older than the newest was imported")
	}
	if err := s.Import("nope", 7, []byte(`{}`)); err == nil {
		t.Fatal("an unknown buffer was accepted")
	}
}

func TestOnClearSeesTheClearedKinds(t *testing.T) {
	s := NewStore()
	var got [][]string
	s.OnClear(func(k []string) { got = append(got, k) })
	s.Clear(KindLogs)
	s.Clear()
	if len(got) != 2 || !slices.Equal(got[0], []string{KindLogs}) || len(got[1]) != len(Kinds) {
		t.Fatalf("got %v", got)
	}
}
