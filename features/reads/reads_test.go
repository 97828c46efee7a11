package reads

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func sample(i int) Read {
	n := i
	return Read{At: time.Unix(int64(i), 0), Tool: "observe", Mode: "errors", Asked: "limit=20", Agent: "claude-code", Entries: &n, Bytes: 100 * i}
}

// The ring never holds more than its bytes, drops the oldest first, and
// counts what it dropped.
func TestRingBoundedInBytes(t *testing.T) {
	one := sample(0).size()
	l := New(10 * one)
	for i := range 1000 {
		l.Add(sample(i))
		if l.Bytes() > 10*one {
			t.Fatalf("after %d reads the ring holds %d bytes, past %d", i+1, l.Bytes(), 10*one)
		}
	}
	got := l.Recent()
	if len(got) != 10 {
		t.Fatalf("holds %d reads, want the newest 10", len(got))
	}
	for i, r := range got {
		if want := 990 + i; *r.Entries != want {
			t.Errorf("read %d is #%d, want #%d (oldest first, newest kept)", i, *r.Entries, want)
		}
		if i > 0 && r.Seq != got[i-1].Seq+1 {
			t.Errorf("seq %d after %d", r.Seq, got[i-1].Seq)
		}
	}
	if l.Evicted() != 990 {
		t.Errorf("evicted %d, want 990", l.Evicted())
	}
}

// A long text is cut to maxText bytes on a character boundary, so one
// read cannot take the ring.
func TestTextsCapped(t *testing.T) {
	l := New(0)
	r := l.Add(Read{Tool: "observe", Mode: "logs", Asked: strings.Repeat("é", 500), Agent: strings.Repeat("x", 1000)})
	if len(r.Asked) > maxText || len(r.Agent) > maxText {
		t.Fatalf("kept %d and %d bytes, past %d", len(r.Asked), len(r.Agent), maxText)
	}
	if !utf8.ValidString(r.Asked) || !strings.HasSuffix(r.Asked, "…") {
		t.Errorf("cut %q: want valid UTF-8 ending in …", r.Asked)
	}
	if l.Bytes() > overhead+6*maxText {
		t.Errorf("one read costs %d bytes", l.Bytes())
	}
}

// The human's choice starts off and says when it changed.
func TestAuditedSetting(t *testing.T) {
	l := New(0)
	if l.Audited() {
		t.Fatal("reads are audited before the human asked")
	}
	if !l.SetAudited(true) || !l.Audited() {
		t.Fatal("turning it on did not take")
	}
	if l.SetAudited(true) {
		t.Error("setting it on twice reports a change")
	}
	if !l.SetAudited(false) || l.Audited() {
		t.Error("turning it off did not take")
	}
}

// The audit line of a read carries its size and, when it failed, its code.
func TestEvent(t *testing.T) {
	n := 3
	ev := Event(Read{At: time.Unix(0, 0), Tool: "observe", Mode: "errors", Asked: "limit=5", Agent: "c", Entries: &n, Bytes: 812})
	if ev.Event != "ai_read" || ev.Name != "observe" || ev.Action != "errors" || ev.Entries != 3 || ev.Bytes != 812 ||
		ev.Result != "ok" || ev.Reason != "limit=5" || ev.Source != "ai" {
		t.Errorf("line %+v", ev)
	}
	ev = Event(Read{Tool: "generate", Mode: "sarif", Error: "not_found"})
	if ev.Result != "error" || ev.Error != "not_found" {
		t.Errorf("failed read's line %+v", ev)
	}
}
