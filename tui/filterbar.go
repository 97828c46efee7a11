package tui

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// filterKeys are the filter prompt's: enter keeps the filter, esc drops it.
type filterKeys struct {
	Apply, Cancel key.Binding
}

// filterBar is `/`: the prompt on the status line that edits the active
// pane's filter (filter.go), applying it as it is typed.
type filterBar struct {
	keys  filterKeys
	input textinput.Model
	on    bool
	err   error // what is wrong with the filter as typed
}

func newFilterBar() filterBar {
	in := textinput.New()
	in.Prompt = "/ filter: "
	in.Placeholder = "status>=400 method:POST level:error url:/api type:img or text; enter keeps, esc drops"
	// A steady cursor: a blinking one would redraw the screen twice a
	// second for nothing.
	in.Cursor.SetMode(cursor.CursorStatic)
	return filterBar{input: in, keys: filterKeys{
		Apply:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "drop filter")),
	}}
}

// open starts editing the filter the pane has.
func (f *filterBar) open(current string) tea.Cmd {
	f.on = true
	f.input.SetValue(current)
	f.input.CursorEnd()
	return f.input.Focus()
}

// setWidth gives the prompt the terminal's width.
func (f *filterBar) setWidth(w int) { f.input.Width = max(10, w-len(f.input.Prompt)-1) }

// Update takes every key while the prompt is open: it edits the filter of
// p. While what is typed does not parse, p keeps the last filter that did
// and the prompt says what is wrong; enter then keeps the prompt open.
func (f *filterBar) Update(msg tea.KeyMsg, p pane) (tea.Cmd, bool) {
	if !f.on {
		return nil, false
	}
	switch {
	case key.Matches(msg, f.keys.Apply):
		if f.err != nil {
			return nil, true
		}
		f.on = false
		f.input.Blur()
	case key.Matches(msg, f.keys.Cancel):
		f.on, f.err = false, nil
		f.input.Blur()
		f.input.Reset()
		_ = p.SetFilter("")
	default:
		var cmd tea.Cmd
		f.input, cmd = f.input.Update(msg)
		f.err = p.SetFilter(f.input.Value())
		return cmd, true
	}
	return nil, true
}

func (f *filterBar) ShortHelp() []key.Binding { return []key.Binding{f.keys.Apply, f.keys.Cancel} }

// View is the prompt on the status line, w cells wide; what is wrong
// with the filter follows what is typed.
func (f *filterBar) View(w int) string {
	if f.err == nil {
		return f.input.View()
	}
	short := f.input // as wide as what is typed, the error after it
	short.Width = lipgloss.Width(f.input.Value()) + 1
	in := short.View()
	return in + styleErr.Render(fit("  ✖ "+clean(f.err.Error()), max(0, w-lipgloss.Width(in))))
}
