package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// Every component owns its keys (bubbles/key bindings) and says which of
// them its bar lists; the root model owns only the keys that act whatever
// is shown (globalKeys) and composes the bar from the component in focus.

// listKeys move a selection or scroll a view: every list and view has
// them.
type listKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
}

func newListKeys() listKeys {
	return listKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", "oldest")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "newest, follow")),
	}
}

func (k listKeys) bindings() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

// scroll moves a viewport by a movement key; false for any other key.
func (k listKeys) scroll(vp *viewport.Model, msg tea.KeyMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	case key.Matches(msg, k.Top):
		vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
	default:
		return false
	}
	return true
}

// globalKeys are the root model's own: they act on the dashboard or on
// the selected row of whatever pane is shown, once no pop-up took the key.
type globalKeys struct {
	NextPane key.Binding
	PrevPane key.Binding
	// Panes jumps to pane 1–6 by its number.
	Panes key.Binding
	// Open shows everything about the selected row; Back (esc) closes
	// whatever is open: the full help, a pane's own view, a kept filter.
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
	Pilot  key.Binding
	// Tabs shows the panes one tab at a time, then every tab (the AIs'
	// tabs and the human's); FreeTab frees the shown tab an AI owns.
	Tabs    key.Binding
	FreeTab key.Binding
	Filter  key.Binding
	Help    key.Binding
	Quit    key.Binding
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		NextPane: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Panes:    key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6"), key.WithHelp("1-6", "pane")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Copy:     key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy")),
		Doctor:   key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "doctor")),
		Send:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "send row to AI")),
		Unsend:   key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "clear sent to AI")),
		Pilot:    key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "block/unblock pilot")),
		Tabs:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "one tab/all")),
		FreeTab:  key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "free AI's tab")),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// keyBar is the help bar's bubbles/help KeyMap as the model composed it
// for what has the focus.
type keyBar struct {
	short []key.Binding
	full  [][]key.Binding
}

func (b keyBar) ShortHelp() []key.Binding  { return b.short }
func (b keyBar) FullHelp() [][]key.Binding { return b.full }

// footLine is a pop-up's keys on its last line, "y accept · n refuse":
// the pop-up's own words for them, not the help bar's style.
func footLine(bs ...key.Binding) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.Help().Key + " " + b.Help().Desc
	}
	return strings.Join(parts, " · ")
}
