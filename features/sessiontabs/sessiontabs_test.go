package sessiontabs

import (
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/problem"
)

func TestOwnersActAndOthersAreRefused(t *testing.T) {
	changes := 0
	tabs := New(func() { changes++ })
	tabs.Own("s1", "claude", 5)
	tabs.Track("s2", "cursor", 5)
	if err := tabs.MayAct("s1", 5); err != nil {
		t.Fatalf("the owner: %v", err)
	}
	err := tabs.MayAct("s2", 5)
	if problem.From(err).Code != problem.TabOwned || !strings.Contains(err.Error(), `"claude"`) {
		t.Fatalf("another session: %v", err)
	}
	if tabs.MayAct("s2", 6) != nil || tabs.Of("s2").Tab != 5 || tabs.Of("s3").Tab != 0 {
		t.Fatal("a free tab, or the bindings")
	}
	tabs.End("s1")
	if tabs.MayAct("s2", 5) != nil {
		t.Fatal("the owner's end frees its tab")
	}
	tabs.Own("s1", "claude", 7)
	if !tabs.Free(7) || tabs.MayAct("s2", 7) != nil || tabs.Of("s1").Tab != 7 {
		t.Fatal("the human frees a tab; its session still reads it")
	}
	tabs.Closed(7)
	if tabs.Of("s1").Tab != 0 {
		t.Fatal("a closed tab is forgotten")
	}
	if changes != 6 {
		t.Fatalf("%d changes told", changes)
	}
}

func TestOwnedTabsAreBounded(t *testing.T) {
	tabs := New(nil)
	for i := 0; i < MaxOwned; i++ {
		if err := tabs.Reserve(string(rune('a' + i))); err != nil {
			t.Fatal(err)
		}
		tabs.Own(string(rune('a'+i)), "ai", 100+i)
	}
	if err := tabs.Reserve("z"); problem.From(err).Code != problem.RateLimited || !strings.Contains(err.Error(), "16") {
		t.Fatalf("the 17th: %v", err)
	}
	if err := tabs.Reserve("a"); err != nil {
		t.Fatalf("a session replacing its own tab: %v", err)
	}
}

// What happens in a tab concerns the sessions on it; a session on no tab of
// its own hears of every tab but those another session owns.
func TestWhatConcernsASession(t *testing.T) {
	tabs := New(nil)
	tabs.Own("a", "claude", 5)
	tabs.Track("c", "cursor", 6)
	for _, c := range []struct {
		session string
		tab     int
		want    bool
	}{{"a", 5, true}, {"a", 6, false}, {"c", 6, true}, {"c", 5, false}, {"human", 6, true}, {"human", 9, true}, {"human", 5, false}} {
		if got := tabs.Concerns(c.session, c.tab); got != c.want {
			t.Errorf("tab %d concerns %s: %v, want %v", c.tab, c.session, got, c.want)
		}
	}
}

// A session its relay brings to a new server owns its tab again, unless
// another session owns it there already (then it reads it).
func TestResumedAfterATakeover(t *testing.T) {
	tabs := New(nil)
	tabs.Resume("a2", "claude", 5, true, 0)
	if b := tabs.Of("a2"); !b.Owned || b.Tab != 5 || b.Agent != "claude" {
		t.Fatalf("resumed: %+v", b)
	}
	tabs.Resume("b2", "cursor", 5, true, 0)
	if b := tabs.Of("b2"); b.Owned || b.Tab != 5 {
		t.Fatalf("a tab owned by another: %+v", b)
	}
	if o, _ := tabs.Owner(5); o.Session != "a2" {
		t.Fatalf("owner %+v", o)
	}
	tabs.Resume("c2", "zed", 0, true, 0)
	if tabs.Of("c2").Tab != 0 {
		t.Fatal("no tab, no binding")
	}
	// The human's tracked tab is read, never owned.
	tabs.Resume("d2", "aider", 7, true, 7)
	if b := tabs.Of("d2"); b.Owned || b.Tab != 7 {
		t.Fatalf("the human's tab claimed as owned: %+v", b)
	}
}
