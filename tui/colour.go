package tui

import (
	"io"
	"os"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// useTerminalColours sets the colours the dashboard draws with on the
// terminal it owns. termenv takes a CI variable to mean "not a terminal" and
// drops every colour; the dashboard only ever runs on a terminal (main
// refuses it otherwise), and dim rows and marks carry meaning, so CI does
// not count here. NO_COLOR and CLICOLOR=0 still do: the human asked.
func useTerminalColours() {
	lipgloss.SetColorProfile(terminalProfile(osEnv{}))
}

// terminalProfile is the colour profile for a terminal with environment env.
func terminalProfile(env termenv.Environ) termenv.Profile {
	out := termenv.NewOutput(io.Discard, termenv.WithTTY(true), termenv.WithEnvironment(env))
	return out.EnvColorProfile()
}

// osEnv is the process's environment, as termenv reads one.
type osEnv struct{}

func (osEnv) Environ() []string        { return os.Environ() }
func (osEnv) Getenv(key string) string { return os.Getenv(key) }
