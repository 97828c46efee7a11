package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/viewport"
	"github.com/charmbracelet/x/ansi"
)

// detail is the view of one row, whole, over the pane it came from: a
// scrollable viewport that Esc closes, leaving the pane's selection where
// it was.
type detail struct {
	title string
	text  string // plain, as copied
	vp    viewport.Model
	// pic, when set, draws a picture above the text at a width (a
	// request's waterfall); copying takes the text alone.
	pic func(w int) string
}

func newDetail(title, text string, w, h int) *detail {
	d := &detail{title: title, text: text, vp: viewport.New(w, h)}
	d.resize(w, h)
	return d
}

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

// view is the detail's title line and its text.
func (d *detail) view() string {
	return styleColHead.Render(fit(d.title, d.vp.Width)) + "\n" + d.vp.View()
}

// status is where the detail is scrolled, for the tab bar.
func (d *detail) status() string {
	n := d.vp.TotalLineCount()
	last := min(n, d.vp.YOffset+d.vp.Height)
	return fmt.Sprintf("lines %d–%d of %d · esc back", d.vp.YOffset+1, last, n)
}
