package capture

import (
	"testing"
	"time"
)

// A loss known as a number (rows a bound left out) counts like a skipped
// sequence: in the total, per tab and kind, and in words.
func TestLossCounted(t *testing.T) {
	l := NewLosses()
	at := time.Date(2026, 1, 2, 21, 4, 3, 0, time.UTC)
	l.Count(Gap{Tab: 5, Kind: "resource", Lost: 0, From: at, To: at})
	if l.Total() != 0 {
		t.Fatalf("nothing lost counted as %d", l.Total())
	}
	l.Count(Gap{Tab: 5, Kind: "resource", Lost: 12, From: at, To: at.Add(time.Second)})
	if l.Total() != 12 || len(l.Totals()) != 1 || l.Totals()[0] != (LossTotal{5, "resource", 12}) {
		t.Fatalf("total %d, by tab %v", l.Total(), l.Totals())
	}
	if got := l.Recent(5)[0].String(); got != "12 resource timing entries lost on tab 5 between 21:04:03Z and 21:04:04Z" {
		t.Errorf("in words: %q", got)
	}
}
