package wait

import (
	"sync/atomic"
	"testing"
	"time"
)

// A state that comes is seen when it comes, however far off the bound is.
func TestUntilSeesTheStateWhenItComes(t *testing.T) {
	var n atomic.Int32
	done := make(chan bool, 1)
	go func() { done <- Until(time.Hour, func() bool { return n.Add(1) >= 3 }) }()
	if !<-done {
		t.Fatal("a state that came was not seen")
	}
	if n.Load() != 3 {
		t.Fatalf("cond asked %d times, want 3: asking stops once it holds", n.Load())
	}
}

// A state that never comes is a false at the bound, not a hang.
func TestUntilGivesUpAtTheBound(t *testing.T) {
	var asked atomic.Int32
	if Until(20*time.Millisecond, func() bool { asked.Add(1); return false }) {
		t.Fatal("a state that never came was seen")
	}
	if asked.Load() < 2 {
		t.Fatalf("cond asked %d times: it is asked again until the bound", asked.Load())
	}
}
