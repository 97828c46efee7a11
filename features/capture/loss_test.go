package capture

import (
	"testing"
	"time"
)

func TestLossesCountGapsNotResets(t *testing.T) {
	l := NewLosses()
	t0 := time.Date(2026, 11, 27, 21, 4, 3, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for i := int64(1); i <= 3; i++ {
		l.Note("log", 5, at(int(i)*100), "docA", i)
	}
	l.Note("log", 5, at(1500), "docA", 15) // 4..14 lost
	l.Note("log", 5, at(1600), "docA", 15) // a repeat
	l.Note("log", 5, at(1700), "docA", 2)  // late
	l.Note("log", 5, at(1800), "docB", 1)  // a new document
	l.Note("log", 5, at(1900), "docC", 40) // a document first seen mid-way
	l.Note("network", 5, at(2000), "docA", 1)
	l.Note("network", 5, at(2100), "docA", 3) // a gap of another kind
	l.Note("log", 5, at(2200), "", 9)         // no sequence: an older extension
	if got := l.Total(); got != 12 {
		t.Fatalf("total %d, want 12", got)
	}
	if got := l.Totals(); len(got) != 2 || got[0] != (LossTotal{5, "log", 11}) || got[1] != (LossTotal{5, "network", 1}) {
		t.Fatalf("totals %v", got)
	}
	gaps := l.Within("log", at(0), at(3000))
	if len(gaps) != 1 || gaps[0].String() != "11 console entries lost on tab 5 between 21:04:03Z and 21:04:04Z" {
		t.Fatalf("gaps %v", gaps)
	}
	if g := l.Within("log", at(1600), at(3000)); len(g) != 0 {
		t.Fatalf("a range after the gap reports it: %v", g)
	}
	if g := l.Within("network", at(0), at(3000)); len(g) != 1 || g[0].String() != "1 network request lost on tab 5 at 21:04:05Z" {
		t.Fatalf("network gaps %v", g)
	}
	if r := l.Recent(1); len(r) != 1 || r[0].Kind != "network" {
		t.Fatalf("recent %v", r)
	}
}

func TestLossesBounded(t *testing.T) {
	l := NewLosses()
	now := time.Now()
	for i := range maxDocs*len(lossNouns) + 10 {
		l.Note("log", 1, now, string(rune('a'+i%26))+time.Duration(i).String(), 1)
	}
	if len(l.docs) > maxDocs*len(lossNouns) || len(l.order) > maxDocs*len(lossNouns) {
		t.Fatalf("%d documents followed", len(l.docs))
	}
	for i := range maxGaps + 10 {
		l.Note("ws", 1, now, "gaps", int64(2*i+1))
	}
	if len(l.gaps) != maxGaps {
		t.Fatalf("%d gaps kept", len(l.gaps))
	}
	for tab := range maxTotals + 10 {
		l.Note("log", tab+2, now, "t"+time.Duration(tab).String(), 1)
		l.Note("log", tab+2, now, "t"+time.Duration(tab).String(), 3)
	}
	if len(l.totals) > maxTotals+1 {
		t.Fatalf("%d totals kept", len(l.totals))
	}
}
