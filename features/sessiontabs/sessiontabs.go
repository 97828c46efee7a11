// Package sessiontabs holds which tab each AI session reads and acts on:
// the tab it opened (owned: no other session may act on it) or the one it
// chose to read (configure track), else the human's tracked tab. Ownership
// lives in memory and ends with the session or when the human frees it.
package sessiontabs

import (
	"slices"
	"sync"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// MaxOwned bounds the tabs AI sessions own at once, server-wide.
const MaxOwned = 16

// Binding is one session's tab.
type Binding struct {
	Session string `json:"-"`
	Agent   string `json:"agent"`
	Tab     int    `json:"tab"`
	Owned   bool   `json:"owned,omitempty"`
}

// Tabs are the sessions' bindings. Safe for concurrent use.
type Tabs struct {
	mu       sync.Mutex
	bindings map[string]Binding // by session
	onChange func()
}

// New returns no bindings; onChange (may be nil) runs after each change.
func New(onChange func()) *Tabs {
	return &Tabs{bindings: make(map[string]Binding), onChange: onChange}
}

func (t *Tabs) changed() {
	if t.onChange != nil {
		t.onChange()
	}
}

// Reserve says whether session may own one more tab (checked before the
// tab is opened).
func (t *Tabs) Reserve(session string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for s, b := range t.bindings {
		if b.Owned && s != session {
			n++
		}
	}
	if n >= MaxOwned {
		return problem.New(problem.RateLimited, "AI sessions own %d tabs already, the most a server allows (%d): close one (interact close_tab) first", n, MaxOwned)
	}
	return nil
}

// Own binds session to tab as its owner; Track binds it to read tab
// without owning it; tab 0 unbinds (the human's tracked tab again).
func (t *Tabs) Own(session, agent string, tab int) {
	t.bind(Binding{Session: session, Agent: agent, Tab: tab, Owned: true})
}

// Track binds session to read tab (0: the human's tracked tab).
func (t *Tabs) Track(session, agent string, tab int) {
	t.bind(Binding{Session: session, Agent: agent, Tab: tab})
}

// Resume binds session again to the tab it owned or tracked on the server
// before a takeover (its relay says which): owned again, unless another
// session owns that tab now, MaxOwned tabs are owned, or the tab is human
// (the tab the human tracks is never an AI's own, whatever a relay
// claims); then tracked.
func (t *Tabs) Resume(session, agent string, tab int, owned bool, human int) {
	if tab <= 0 {
		return
	}
	owned = owned && tab != human
	t.mu.Lock()
	n := 0
	for s, b := range t.bindings {
		if b.Owned && s != session {
			n++
			owned = owned && b.Tab != tab
		}
	}
	t.bindings[session] = Binding{Session: session, Agent: agent, Tab: tab, Owned: owned && n < MaxOwned}
	t.mu.Unlock()
	t.changed()
}

func (t *Tabs) bind(b Binding) {
	t.mu.Lock()
	if b.Tab == 0 {
		delete(t.bindings, b.Session)
	} else {
		t.bindings[b.Session] = b
	}
	t.mu.Unlock()
	t.changed()
}

// Of is session's binding (Tab 0 when it has none).
func (t *Tabs) Of(session string) Binding {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bindings[session]
}

// Owner is the binding of the session that owns tab, if one does.
func (t *Tabs) Owner(tab int) (Binding, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, b := range t.bindings {
		if b.Owned && b.Tab == tab {
			return b, true
		}
	}
	return Binding{}, false
}

// Concerns says whether what happens in tab concerns session: its own or
// tracked tab only; a session that claimed none hears of every tab but
// those other sessions own.
func (t *Tabs) Concerns(session string, tab int) bool {
	if b := t.Of(session); b.Tab != 0 {
		return b.Tab == tab
	}
	_, owned := t.Owner(tab)
	return !owned
}

// MayAct refuses session's action on a tab another session owns.
func (t *Tabs) MayAct(session string, tab int) error {
	if o, ok := t.Owner(tab); ok && o.Session != session {
		return problem.New(problem.TabOwned, "tab %d belongs to AI session %q, which opened it; act on your own tab (interact new_tab) or ask the human to free it", tab, o.Agent)
	}
	return nil
}

// End forgets session: its tabs are free.
func (t *Tabs) End(session string) {
	t.mu.Lock()
	_, had := t.bindings[session]
	delete(t.bindings, session)
	t.mu.Unlock()
	if had {
		t.changed()
	}
}

// Free is the human's: tab is no longer owned by anyone (the session still
// reads it).
func (t *Tabs) Free(tab int) bool {
	t.mu.Lock()
	freed := false
	for s, b := range t.bindings {
		if b.Owned && b.Tab == tab {
			b.Owned = false
			t.bindings[s] = b
			freed = true
		}
	}
	t.mu.Unlock()
	if freed {
		t.changed()
	}
	return freed
}

// Closed forgets a tab that is gone.
func (t *Tabs) Closed(tab int) {
	t.mu.Lock()
	gone := false
	for s, b := range t.bindings {
		if b.Tab == tab {
			delete(t.bindings, s)
			gone = true
		}
	}
	t.mu.Unlock()
	if gone {
		t.changed()
	}
}

// List is every binding, by tab then agent.
func (t *Tabs) List() []Binding {
	t.mu.Lock()
	out := make([]Binding, 0, len(t.bindings))
	for _, b := range t.bindings {
		out = append(out, b)
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b Binding) int {
		if a.Tab != b.Tab {
			return a.Tab - b.Tab
		}
		return cmpString(a.Agent, b.Agent)
	})
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
