package pointing

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)

func clock() func() time.Time {
	now := t0
	return func() time.Time { now = now.Add(time.Second); return now }
}

func add(t *testing.T, b *Board, kind, entry, note string) Entry {
	t.Helper()
	e, err := b.Add(kind, json.RawMessage(entry), kind+" summary", note)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestNewestFirstWholeEntryAndNote(t *testing.T) {
	b := New(0, clock())
	add(t, b, KindError, `{"message":"boom","stack":"at f (a.js:1:2)"}`, "")
	add(t, b, KindNetwork, `{"url":"http://x/api","status":500,"response_body":"oops"}`, "  why 500?  ")
	list, dropped := b.List("", "")
	if dropped != 0 || len(list) != 2 {
		t.Fatalf("list %+v dropped %d", list, dropped)
	}
	if list[0].Kind != KindNetwork || list[0].Note != "why 500?" || !strings.Contains(string(list[0].Entry), `"response_body":"oops"`) {
		t.Fatalf("newest: %+v", list[0])
	}
	if list[1].Kind != KindError || !strings.Contains(string(list[1].Entry), "a.js:1:2") {
		t.Fatalf("older: %+v", list[1])
	}
	j, _ := json.Marshal(list[0])
	if strings.Contains(string(j), "null") || !strings.Contains(string(j), `"at":"2026-11-28T01:00:02.000Z"`) {
		t.Fatalf("json: %s", j)
	}
}

func TestReadOncePerSession(t *testing.T) {
	b := New(0, clock())
	add(t, b, KindConsole, `{"message":"a"}`, "")
	if got := b.Unread("s1", "claude"); len(got) != 1 {
		t.Fatalf("s1 first: %d", len(got))
	}
	if got := b.Unread("s1", "claude"); len(got) != 0 {
		t.Fatalf("s1 again: %d", len(got))
	}
	if got := b.Unread("s2", "cursor"); len(got) != 1 || got[0].ReadBy[0] != "claude" {
		t.Fatalf("s2 first: %+v", got)
	}
	add(t, b, KindAction, `{"type":"click"}`, "this button")
	got := b.Unread("s1", "claude")
	if len(got) != 1 || got[0].Kind != KindAction {
		t.Fatalf("s1 after a new one: %+v", got)
	}
	// List marks everything read for the session, once.
	b.List("s3", "zed")
	b.List("s3", "zed")
	if got := b.Unread("s3", "zed"); len(got) != 0 {
		t.Fatalf("s3 read by list: %+v", got)
	}
	n, _ := b.Newest()
	if strings.Join(n.ReadBy, ",") != "claude,zed" {
		t.Fatalf("read by %v", n.ReadBy)
	}
	old, _ := b.List("", "")
	if strings.Join(old[1].ReadBy, ",") != "claude,cursor,zed" {
		t.Fatalf("older read by %v", old[1].ReadBy)
	}
}

func TestBoundDropsOldestCounted(t *testing.T) {
	b := New(4<<10, clock())
	big := `{"data":"` + strings.Repeat("x", 1000) + `"}`
	for range 10 {
		add(t, b, KindWebSocket, big, "")
	}
	list, dropped := b.List("", "")
	if dropped == 0 || len(list)+dropped != 10 || list[0].ID != 10 {
		t.Fatalf("kept %d dropped %d newest %d", len(list), dropped, list[0].ID)
	}
	total := 0
	for _, e := range list {
		total += e.size()
	}
	if total > 4<<10 {
		t.Fatalf("board holds %d bytes", total)
	}
}

func TestRefusesAndCuts(t *testing.T) {
	b := New(0, clock())
	for _, tc := range []struct{ kind, entry string }{
		{"cookie", `{}`}, {KindConsole, ``}, {KindConsole, `null`}, {KindConsole, `{"a":`},
		{KindConsole, `"` + strings.Repeat("x", MaxEntry) + `"`},
	} {
		if _, err := b.Add(tc.kind, json.RawMessage(tc.entry), "", ""); err == nil {
			t.Errorf("%s %.20s: taken", tc.kind, tc.entry)
		}
	}
	e := add(t, b, KindElement, `{}`, strings.Repeat("é", MaxNote+50))
	if n := len([]rune(e.Note)); n != MaxNote {
		t.Fatalf("note of %d characters", n)
	}
	e, _ = b.Add(KindConsole, json.RawMessage(`{}`), "a\x1b[2Jb\nc", "")
	if e.Summary != "a [2Jb c" {
		t.Fatalf("summary %q", e.Summary)
	}
}

func TestReadersAndSessionsBounded(t *testing.T) {
	b := New(0, clock())
	add(t, b, KindConsole, `{}`, "")
	for i := range MaxSessions + 5 {
		b.Unread(fmt.Sprint("s", i), fmt.Sprint("ai", i))
	}
	n, _ := b.Newest()
	if len(n.ReadBy) != MaxReaders || n.ReadMore != MaxSessions+5-MaxReaders {
		t.Fatalf("readers %d more %d", len(n.ReadBy), n.ReadMore)
	}
	if len(b.read) != MaxSessions || len(b.order) != MaxSessions {
		t.Fatalf("marks %d/%d", len(b.read), len(b.order))
	}
	b.Forget("s100")
	if _, ok := b.read["s100"]; ok || len(b.order) != MaxSessions-1 {
		t.Fatal("forget kept the mark")
	}
}

// Issue 58 row 13: six sessions of one client name it once; Clear takes
// the board down, and a new session then gets nothing old.
func TestReaderNamedOnceAndBoardCleared(t *testing.T) {
	b := New(0, clock())
	add(t, b, KindConsole, `{}`, "")
	for i := range 6 {
		b.Unread(fmt.Sprint("s", i), "newcomer-ai")
	}
	b.Unread("s9", "cursor")
	if n, _ := b.Newest(); strings.Join(n.ReadBy, ",") != "newcomer-ai,cursor" || n.ReadMore != 0 {
		t.Fatalf("read by %v +%d", n.ReadBy, n.ReadMore)
	}
	if n := b.Clear(); n != 1 {
		t.Fatalf("cleared %d", n)
	}
	if got := b.Unread("new", "newcomer-ai"); len(got) != 0 {
		t.Fatalf("a new session after clear: %+v", got)
	}
	if _, ok := b.Newest(); ok {
		t.Fatal("newest after clear")
	}
	if e := add(t, b, KindConsole, `{}`, ""); e.ID != 2 {
		t.Fatalf("id after clear: %d", e.ID)
	}
}
