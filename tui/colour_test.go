package tui

import (
	"testing"

	"github.com/muesli/termenv"
)

type mapEnv map[string]string

func (e mapEnv) Environ() []string {
	var out []string
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	return out
}
func (e mapEnv) Getenv(k string) string { return e[k] }

func TestTerminalColoursIgnoreCIButNotNoColor(t *testing.T) {
	for _, c := range []struct {
		name string
		env  mapEnv
		want termenv.Profile
	}{
		{"tmux", mapEnv{"TERM": "tmux-256color"}, termenv.ANSI256},
		{"tmux under CI", mapEnv{"TERM": "tmux-256color", "CI": "true"}, termenv.ANSI256},
		{"xterm under CI", mapEnv{"TERM": "xterm", "CI": "1"}, termenv.ANSI},
		{"NO_COLOR", mapEnv{"TERM": "tmux-256color", "NO_COLOR": "1"}, termenv.Ascii},
		{"CLICOLOR=0", mapEnv{"TERM": "tmux-256color", "CLICOLOR": "0"}, termenv.Ascii},
		{"dumb", mapEnv{"TERM": "dumb"}, termenv.Ascii},
	} {
		if got := terminalProfile(c.env); got != c.want {
			t.Errorf("%s: profile %v, want %v", c.name, got, c.want)
		}
	}
}
