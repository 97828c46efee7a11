package pointing

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// What Keep writes, Restore brings back whole: the entries newest first
// with their times, notes, bodies and readers, the dropped count and the
// next id; read marks stay behind, so a session of the new owner reads
// every entry once.
func TestKeptBoardRestoresWhole(t *testing.T) {
	b := New(0, clock())
	add(t, b, KindError, `{"message":"boom","stack":"at f (a.js:1:2)"}`, "")
	add(t, b, KindNetwork, `{"url":"http://x/api?a=1&b=<2>","status":500,"response_body":"oops"}`, "why 500?")
	b.Unread("s1", "cursor")
	add(t, b, KindElement, `{"selector":"#buy"}`, "")
	data, err := b.Keep()
	if err != nil {
		t.Fatal(err)
	}
	nb := New(0, clock())
	n, skipped, err := nb.Restore(data)
	if err != nil || n != 3 || skipped != 0 {
		t.Fatalf("restored %d, skipped %d: %v", n, skipped, err)
	}
	want, _ := b.List("", "")
	got, dropped := nb.List("", "")
	if dropped != 0 || mustJSON(t, got) != mustJSON(t, want) {
		t.Fatalf("restored\n%s\nwant\n%s", mustJSON(t, got), mustJSON(t, want))
	}
	if u := nb.Unread("s1", "claude-code"); len(u) != 3 || strings.Join(u[1].ReadBy, ",") != "cursor,claude-code" {
		t.Fatalf("a new owner's session reads: %+v", u)
	}
	if e := add(t, nb, KindConsole, `{"message":"next"}`, ""); e.ID != 4 {
		t.Fatalf("the next id after a restore: %d", e.ID)
	}
}

// Keep writes at most MaxKept bytes: past it the oldest entries stay
// behind, counted as dropped, and the newest are kept.
func TestKeepIsBounded(t *testing.T) {
	b := New(0, clock())
	note := strings.Repeat("\x01", MaxNote) // six bytes each in JSON
	for i := range 2000 {
		add(t, b, KindConsole, fmt.Sprintf(`{"n":%d}`, i), note)
	}
	held, droppedBefore := b.List("", "")
	data, err := b.Keep()
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > MaxKept {
		t.Fatalf("kept %d bytes, bound %d", len(data), MaxKept)
	}
	nb := New(0, nil)
	n, _, err := nb.Restore(data)
	if err != nil || n == 0 || n >= len(held) {
		t.Fatalf("restored %d of %d: %v", n, len(held), err)
	}
	got, dropped := nb.List("", "")
	if got[0].ID != held[0].ID || dropped != droppedBefore+len(held)-n {
		t.Fatalf("newest %d (want %d), dropped %d (want %d)", got[0].ID, held[0].ID, dropped, droppedBefore+len(held)-n)
	}
}

// Restore takes only what Add would have taken, onto an empty board, and
// counts the rest as dropped; a file that is not a board restores nothing.
func TestRestoreRefusesWhatAddWould(t *testing.T) {
	entry := func(id int, kind, body string) string {
		return fmt.Sprintf(`{"id":%d,"kind":%q,"at":"2026-11-28T01:00:00Z","entry":%s,"summary":"s"}`, id, kind, body)
	}
	big := `"` + strings.Repeat("x", MaxEntry) + `"`
	data := `{"next":12,"dropped":2,"entries":[` + strings.Join([]string{
		entry(8, KindNetwork, `{"url":"http://x/"}`),
		entry(7, "script", `{}`),
		entry(6, KindError, `null`),
		entry(0, KindError, `{}`),
		entry(5, KindError, big),
		entry(9, KindError, `{"id":"not newer than 8"}`),
		entry(4, KindConsole, `{"message":"kept"}`),
	}, ",") + `]}`
	b := New(0, nil)
	n, skipped, err := b.Restore([]byte(data))
	if err != nil || n != 2 || skipped != 5 {
		t.Fatalf("restored %d, skipped %d: %v", n, skipped, err)
	}
	list, dropped := b.List("", "")
	if list[0].ID != 8 || list[1].ID != 4 || dropped != 7 {
		t.Fatalf("restored %+v, dropped %d", list, dropped)
	}
	// An id the previous owner gave out, even to an entry gone since, is
	// never given again.
	if e := add(t, b, KindConsole, `{}`, ""); e.ID != 12 {
		t.Fatalf("the next id: %d, want 12", e.ID)
	}
	if _, _, err := b.Restore([]byte(data)); err == nil {
		t.Fatal("restored onto a board that holds entries")
	}
	for name, bad := range map[string]string{
		"garbage":   `{"entries":[`,
		"not a map": `[1,2]`,
		"too large": `{"entries":[],"x":"` + strings.Repeat("x", MaxKept) + `"}`,
	} {
		b := New(0, nil)
		if n, _, err := b.Restore([]byte(bad)); err == nil || n != 0 {
			t.Errorf("%s: restored %d, %v", name, n, err)
		}
		if list, _ := b.List("", ""); len(list) != 0 {
			t.Errorf("%s: the board holds %v", name, list)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
