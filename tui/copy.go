package tui

import (
	"io"

	osc52 "github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"
)

// clipboardSeq is the OSC 52 sequence that puts text on the clipboard of
// the terminal the human looks at, over SSH too. Inside tmux (inTmux: $TMUX
// is set) the sequence goes twice: as it is, which tmux takes into its
// buffer and passes on with set-clipboard on, and wrapped in tmux's
// passthrough, which reaches the outer terminal with allow-passthrough on.
func clipboardSeq(text string, inTmux bool) string {
	s := osc52.New(text)
	if inTmux {
		return s.String() + s.Tmux().String()
	}
	return s.String()
}

// copiedMsg says how a copy went.
type copiedMsg struct {
	n   int
	err error
}

// copyCmd writes the sequence to the terminal. It is written apart from
// bubbletea's frames, in one write, which the terminal reads whole.
func copyCmd(out io.Writer, text string, inTmux bool) tea.Cmd {
	return func() tea.Msg {
		if out == nil {
			return copiedMsg{err: errNoTerminal}
		}
		_, err := io.WriteString(out, clipboardSeq(text, inTmux))
		return copiedMsg{n: len(text), err: err}
	}
}
