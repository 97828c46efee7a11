package pilot

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/problem"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestFreshness(t *testing.T) {
	ck := &clock{t: time.Unix(100, 0)}
	s := New(ck.now)
	if st := s.Status(false); st.Source != SourceNeverConnected || st.State != StateUnknown || st.Enabled || st.ExtensionConnected || st.LastPollAgo != nil {
		t.Fatalf("never: %+v", st)
	}
	s.Report(true)
	ck.add(1200 * time.Millisecond)
	if st := s.Status(false); st.Source != SourcePoll || st.State != StateOn || !st.Enabled || !st.ExtensionConnected || *st.LastPollAgo != 1.2 {
		t.Fatalf("fresh: %+v", st)
	}
	ck.add(2 * time.Second)
	// The extension went silent with the switch on: the server no longer
	// knows it, and never shows the last report as the state.
	if st := s.Status(false); st.Source != SourceStale || st.State != StateUnknown || st.Enabled || st.ExtensionConnected {
		t.Fatalf("stale: %+v", st)
	}
	if st := s.Status(true); st.Source != SourcePoll || st.State != StateOn || !st.Enabled {
		t.Fatalf("a live socket keeps it fresh: %+v", st)
	}
	s.Touch()
	if st := s.Status(false); st.Source != SourcePoll {
		t.Fatalf("touch: %+v", st)
	}
}

func TestCheck(t *testing.T) {
	ck := &clock{t: time.Unix(100, 0)}
	s := New(ck.now)
	err := s.Check(true)
	if p := problem.From(err); p.Code != problem.PilotDisabled || p.Message != "Enable 'AI Web Pilot' in extension popup to use this tool" {
		t.Fatalf("%v", err)
	}
	s.Report(true)
	if err := s.Check(false); err != nil {
		t.Fatal(err)
	}
	s.SetBlocked(true)
	if p := problem.From(s.Check(true)); p.Code != problem.PilotDisabled || !strings.Contains(p.Message, "dashboard") {
		t.Fatalf("blocked: %v", p)
	}
	s.SetBlocked(false)
	ck.add(10 * time.Second)
	if p := problem.From(s.Check(false)); p.Code != problem.ExtensionNotConnected {
		t.Fatalf("stale: %v", p)
	}
	s.Report(false)
	if st := s.Status(false); st.State != StateOff || st.Enabled {
		t.Fatalf("off: %+v", st)
	}
	ck.add(10 * time.Second)
	if p := problem.From(s.Check(false)); p.Code != problem.ExtensionNotConnected {
		t.Fatalf("stale while off: %v", p)
	}
}

// Reports, reads and blocks at once (for the race detector); the reports
// are each seen whole: from off, an odd number of flips leaves it on.
func TestThreadSafety(t *testing.T) {
	s := New(nil)
	var wg sync.WaitGroup
	var flips atomic.Int32
	for i := range 8 {
		wg.Go(func() {
			for j := range 1000 {
				switch (i + j) % 4 {
				case 0:
					if s.Report(j%2 == 0) {
						flips.Add(1)
					}
				case 1:
					s.Status(j%2 == 0)
				case 2:
					s.SetBlocked(j%3 == 0)
				default:
					s.Touch()
				}
			}
		})
	}
	wg.Wait()
	if st := s.Status(true); st.Enabled != (flips.Load()%2 == 1) || st.Source != SourcePoll {
		t.Fatalf("%d flips from off, then %+v", flips.Load(), st)
	}
}

func TestScriptDigest(t *testing.T) {
	sum, head := ScriptDigest(strings.Repeat("é", 300))
	if len(sum) != 64 || len([]rune(head)) != 200 {
		t.Fatalf("%s %d", sum, len([]rune(head)))
	}
}

func TestActionCheck(t *testing.T) {
	for _, c := range []struct {
		a    Action
		want string
	}{
		{Action{Name: "highlight"}, "selector is required"},
		{Action{Name: "save_state"}, "snapshot_name is required"},
		{Action{Name: "load_state", SnapshotName: strings.Repeat("n", 51)}, "longer than 50"},
		{Action{Name: "execute_js"}, "script is required"},
		{Action{Name: "execute_js", Script: strings.Repeat("x", MaxScriptBytes+1)}, "longer than"},
		{Action{Name: "launch_missiles"}, "unknown pilot action"},
	} {
		if err := c.a.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c.a.Name, err)
		}
	}
	h := Action{Name: "highlight", Selector: "#go"}
	js := Action{Name: "execute_js", Script: "1"}
	if h.Check() != nil || h.DurationMS != DefaultHighlightMS || js.Check() != nil || js.Timeout() != 8*time.Second || h.Timeout() != 10*time.Second {
		t.Fatalf("defaults: %+v %+v %v", h, js, js.Timeout())
	}
}
