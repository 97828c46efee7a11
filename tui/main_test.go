package tui

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/tui")

// binPath is the gasoline binary, built once for the integration test.
var binPath string

func TestMain(m *testing.M) {
	flag.Parse()
	// Goldens are plain text at a fixed clock and zone.
	time.Local = time.UTC
	lipgloss.SetColorProfile(termenv.Ascii)

	dir, err := os.MkdirTemp("", "gasoline-tui")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "gasoline")
	build := exec.Command("go", "build", "-o", binPath, ".")
	build.Dir = ".." // the repository root; the binary embeds extension/lib/axe.min.js (make)
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build gasoline: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// plainView is a frame as a person reads it: no escape codes, no trailing blanks.
func plainView(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// golden compares got with testdata/tui/NAME.golden (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "testdata", "tui", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (go test ./tui -update rewrites it)\n--- got ---\n%s\n--- want ---\n%s", name, path, got, want)
	}
}

// keyMsg makes the key message a terminal sends for a key name.
func keyMsg(name string) tea.KeyMsg {
	switch name {
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}

// driver runs a model the way bubbletea does — one message at a time,
// commands in goroutines whose results come back as messages — but on the
// test's goroutine, so the test can read the model between messages.
type driver struct {
	t    testing.TB
	m    *Model
	msgs chan tea.Msg
	done chan struct{}
	// observe, if set, sees every message and how long its Update took.
	observe func(tea.Msg, time.Duration)
}

func newDriver(t testing.TB, m *Model) *driver {
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 256), done: make(chan struct{})}
	t.Cleanup(func() { close(d.done) })
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.run(m.Init())
	return d
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		select {
		case d.msgs <- msg:
		case <-d.done:
		}
	}()
}

func (d *driver) send(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
		return
	}
	start := time.Now()
	_, cmd := d.m.Update(msg)
	_ = d.m.View() // bubbletea renders after every message; so do we
	if d.observe != nil {
		d.observe(msg, time.Since(start))
	}
	d.run(cmd)
}

// press sends keys, each handled before the next.
func (d *driver) press(keys ...string) {
	for _, k := range keys {
		d.send(keyMsg(k))
	}
}

// await handles messages until cond holds. The timeout only turns a hang
// into a failure; it never paces the test.
func (d *driver) await(what string, cond func() bool) {
	d.t.Helper()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for !cond() {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-timeout.C:
			d.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, d.screen())
		}
	}
}

func (d *driver) screen() string { return plainView(d.m.View()) }

// headerLines is the height of the header, above the panes.
const headerLines = 3

// line returns the first line of the panes containing s ("" if none): the
// header, which may name the same setting, is not searched.
func (d *driver) line(s string) string {
	for _, l := range strings.Split(d.screen(), "\n")[headerLines:] {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// rowTexts lists a stream pane's rows, oldest first.
func rowTexts(p *streamPane) []string {
	var out []string
	p.rows.each(func(r row) { out = append(out, r.text) })
	return out
}
