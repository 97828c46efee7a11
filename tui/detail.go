package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// detailKeys are the detail's own: it scrolls, and esc closes it.
type detailKeys struct {
	listKeys
	Back key.Binding
}

// detail is the view of one row, whole, over the pane it came from: a
// scrollable viewport that Esc closes, leaving the pane's selection where
// it was.
type detail struct {
	keys  detailKeys
	open  bool
	title string
	text  string // plain, as copied
	vp    viewport.Model
	// pic, when set, draws a picture above the text at a width (a
	// request's waterfall); copying takes the text alone.
	pic func(w int) string
}

func newDetailView() detail {
	return detail{keys: detailKeys{listKeys: newListKeys(),
		Back: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back"))}}
}

// show opens the detail on a text, w×h.
func (d *detail) show(title, text string, w, h int) {
	d.open, d.title, d.text, d.pic = true, title, text, nil
	d.vp = viewport.New(w, h)
	d.resize(w, h)
}

func (d *detail) close() { d.open, d.pic = false, nil }

// resize wraps the text again for a new width.
func (d *detail) resize(w, h int) {
	d.vp.Width, d.vp.Height = w, max(1, h-1)
	text := ansi.Wrap(d.text, max(10, w), " /,&?=")
	if d.pic != nil {
		text = d.pic(w) + "\n\n" + text
	}
	d.vp.SetContent(text)
}

// setPicture draws pic above the text.
func (d *detail) setPicture(pic func(w int) string) {
	if pic != nil {
		d.pic = pic
		d.resize(d.vp.Width, d.vp.Height+1)
	}
}

// Update scrolls, and esc closes; false for any other key, which the
// model decides on (detailKey).
func (d *detail) Update(msg tea.KeyMsg) (tea.Cmd, bool) {
	switch {
	case !d.open:
		return nil, false
	case key.Matches(msg, d.keys.Back):
		d.close()
	case d.keys.scroll(&d.vp, msg):
	default:
		return nil, false
	}
	return nil, true
}

// wheel scrolls by n lines, up when n is negative.
func (d *detail) wheel(n int) {
	if n < 0 {
		d.vp.ScrollUp(-n)
	} else {
		d.vp.ScrollDown(n)
	}
}

func (d *detail) ShortHelp() []key.Binding {
	return []key.Binding{d.keys.Back, d.keys.Up, d.keys.Down}
}

// View is the detail's title line and its text.
func (d *detail) View() string {
	return styleColHead.Render(fit(d.title, d.vp.Width)) + "\n" + d.vp.View()
}

// status is where the detail is scrolled, for the tab bar.
func (d *detail) status() string {
	n := d.vp.TotalLineCount()
	last := min(n, d.vp.YOffset+d.vp.Height)
	return fmt.Sprintf("lines %d–%d of %d · esc back", d.vp.YOffset+1, last, n)
}
