package tui

import "github.com/charmbracelet/lipgloss"

// Colours are ANSI-16 so the dashboard follows the terminal's own theme.
var (
	styleTitle    = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("3"))
	styleDim      = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	styleOK       = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	styleWarn     = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	styleErr      = lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)
	styleInfo     = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	styleAI       = lipgloss.NewStyle().Foreground(lipgloss.Color("5")).Bold(true)
	styleHuman    = lipgloss.NewStyle().Foreground(lipgloss.Color("4")).Bold(true)
	styleTabOn    = lipgloss.NewStyle().Bold(true).Reverse(true)
	styleTabOff   = lipgloss.NewStyle().Foreground(lipgloss.Color("7"))
	styleColHead  = lipgloss.NewStyle().Bold(true).Underline(true)
	styleSelected = lipgloss.NewStyle().Reverse(true)
)

// class is how a row is coloured; rows keep the class, not the style, so
// they stay small and a theme change would not need them rebuilt.
type class uint8

const (
	plain class = iota
	dim
	ok
	warn
	bad
	info
	ai
	human
)

func (c class) style() lipgloss.Style {
	switch c {
	case dim:
		return styleDim
	case ok:
		return styleOK
	case warn:
		return styleWarn
	case bad:
		return styleErr
	case info:
		return styleInfo
	case ai:
		return styleAI
	case human:
		return styleHuman
	}
	return lipgloss.NewStyle()
}
