package tui

import (
	"slices"

	"github.com/charmbracelet/bubbles/key"
)

// KeyMap is every key of the dashboard; the help bar is built from it.
type KeyMap struct {
	NextPane key.Binding
	PrevPane key.Binding
	// Panes jumps to pane 1–6 by its number.
	Panes    key.Binding
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	// Open shows everything about the selected row; Back (esc) closes
	// whatever is open: the detail, the full help, a kept filter.
	Open key.Binding
	Back key.Binding
	// Copy puts the selected row, or the open detail, on the clipboard
	// over OSC 52. Not y: y approves a waiting pilot action, and a copy
	// must never turn into an approval.
	Copy key.Binding
	// Doctor shows every check of gasoline doctor, live.
	Doctor key.Binding
	// Send sends the selected row to the AI, with a note (point.go).
	Send key.Binding
	// Unsend clears what was sent to the AI: every session, new ones
	// too, reads the board until it is cleared.
	Unsend key.Binding

	Revoke    key.Binding
	RevokeAll key.Binding
	Allow     key.Binding
	Pilot     key.Binding
	// Approval switches the Web Pilot between ask and auto.
	Approval key.Binding
	// AllServers shows the audit lines of every server, not just this one.
	AllServers key.Binding
	// AuditReads writes the AI's reads to the audit file too, or stops.
	AuditReads key.Binding
	// Recover brings back the prompt that starts the human's decisions
	// again when their file could not be read (f: the kept file, n: none).
	Recover key.Binding

	// Sort cycles the Network pane's order (time, took, size); PageLoad
	// opens its page-load view.
	Sort     key.Binding
	PageLoad key.Binding

	// Tabs shows the panes one tab at a time, then every tab (the AIs'
	// tabs and the human's); FreeTab frees the shown tab an AI owns.
	Tabs    key.Binding
	FreeTab key.Binding

	Pause  key.Binding
	Clear  key.Binding
	Filter key.Binding
	Help   key.Binding
	Quit   key.Binding

	// While typing a filter.
	Apply  key.Binding
	Cancel key.Binding
}

// DefaultKeyMap is the dashboard's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		NextPane: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Panes:    key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6"), key.WithHelp("1-6", "pane")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", "oldest")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "newest, follow")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Copy:     key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy")),
		Doctor:   key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "doctor")),
		Send:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "send row to AI")),
		Unsend:   key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "clear sent to AI")),

		Revoke:     key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "revoke")),
		RevokeAll:  key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "revoke all")),
		Allow:      key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "allow again")),
		Pilot:      key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "block/unblock pilot")),
		Approval:   key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "pilot: ask/auto")),
		AllServers: key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "audit: this server/all")),
		AuditReads: key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "AI reads in audit file")),
		Recover:    key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "recover decisions")),

		Sort:     key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "network: sort")),
		PageLoad: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "network: page load")),

		Tabs:    key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "one tab/all")),
		FreeTab: key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "free AI's tab")),

		Pause:  key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "pause")),
		Clear:  key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "clear view")),
		Filter: key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Help:   key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:   key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),

		Apply:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "drop filter")),
	}
}

// paneHelp adapts the KeyMap to bubbles/help for what is in view: each
// bar lists the keys that do something there. The bar's last two keys,
// help and quit, are kept on every width (see helpView).
type paneHelp struct {
	k         KeyMap
	veto      bool // the Overrides pane
	audit     bool // the Audit pane
	filtering bool
	detail    bool
	paused    bool
	// tabs: AIs have tabs of their own or tracked (t); free: the tab
	// shown is an AI's own (F).
	tabs, free bool
}

// ShortHelp is the one-line bar.
func (h paneHelp) ShortHelp() []key.Binding {
	k := h.k
	if h.paused {
		k.Pause.SetHelp("space", "resume")
	}
	switch {
	case h.filtering:
		return []key.Binding{k.Apply, k.Cancel}
	case h.detail:
		return []key.Binding{k.Back, k.Up, k.Down, k.Copy, k.Help, k.Quit}
	case h.veto:
		return []key.Binding{k.Revoke, k.RevokeAll, k.Allow, k.Open, k.Pilot, k.NextPane, k.Help, k.Quit}
	case h.audit:
		return []key.Binding{k.AllServers, k.AuditReads, k.Open, k.Filter, k.Copy, k.Pilot, k.NextPane, k.Help, k.Quit}
	}
	keys := []key.Binding{k.Pause, k.Open, k.Filter, k.Clear, k.Copy, k.Pilot, k.NextPane, k.Help, k.Quit}
	if h.free {
		keys = slices.Insert(keys, 0, k.FreeTab)
	}
	if h.tabs {
		keys = slices.Insert(keys, 0, k.Tabs)
	}
	return keys
}

// FullHelp is the `?` view: every key, in groups.
func (h paneHelp) FullHelp() [][]key.Binding {
	k := h.k
	if h.paused {
		k.Pause.SetHelp("space", "resume")
	}
	if h.filtering {
		return [][]key.Binding{{k.Apply, k.Cancel}}
	}
	return [][]key.Binding{
		{k.NextPane, k.PrevPane, k.Panes, k.Open, k.Back, k.Copy, k.Send},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Revoke, k.RevokeAll, k.Allow, k.Pilot, k.Approval, k.AllServers, k.AuditReads},
		{k.Pause, k.Clear, k.Filter, k.Doctor, k.Recover, k.Help, k.Quit},
		{k.Sort, k.PageLoad, k.Unsend, k.Tabs, k.FreeTab},
	}
}
