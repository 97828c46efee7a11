package tui

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/redact"
)

// copyItem is one choice of the copy menu: the key that takes it, what it
// copies, and the text.
type copyItem struct {
	key, label, text string
}

// copyChoices are what the copy menu offers for a row: a request as cURL,
// its URL and bodies; a console entry's message with its stack; any row as
// JSON and as the line the pane draws. bodies are the captured payloads, to
// match to a request. Secrets stay as the server redacted them. It is pure,
// for golden tests.
func copyChoices(src any, line string, bodies []capture.NetworkBody) []copyItem {
	var out []copyItem
	switch e := src.(type) {
	case capture.NetworkEntry:
		var body *capture.NetworkBody
		if i := capture.BodyFor(e, bodies, nil); i >= 0 {
			body = &bodies[i]
		}
		out = append(out, copyItem{"c", "cURL", curlCommand(e, body)}, copyItem{"u", "URL", e.URL})
		if body != nil && body.ResponseBody != "" {
			out = append(out, copyItem{"b", "response body", body.ResponseBody})
		}
		if body != nil && body.RequestBody != "" {
			out = append(out, copyItem{"r", "request body", body.RequestBody})
		}
	case capture.LogEntry:
		msg := strings.Join(append([]string{e.Message}, e.Args...), " ")
		if e.Stack != "" {
			msg += "\n" + e.Stack
		}
		out = append(out, copyItem{"m", "message and stack", msg})
		if e.Source != "" {
			out = append(out, copyItem{"u", "source URL", e.Source})
		}
	case capture.WSEvent:
		if e.Data != "" {
			out = append(out, copyItem{"b", "message data", e.Data})
		}
	case capture.Action:
		if e.Selector != "" {
			out = append(out, copyItem{"s", "selector", e.Selector})
		}
	case navMark:
		out = append(out, copyItem{"u", "URL", e.URL})
	}
	if j, err := json.MarshalIndent(src, "", "  "); err == nil && src != nil {
		out = append(out, copyItem{"j", "whole entry as JSON", string(j)})
	}
	return append(out, copyItem{"l", "line as shown", line})
}

// curlCommand is a request as a cURL command line, with the headers and
// body the server kept: a secret header's value is the server's redaction
// placeholder, and an Authorization header capture never keeps is named
// with it, so the command shows what it lacks instead of failing quietly.
func curlCommand(e capture.NetworkEntry, body *capture.NetworkBody) string {
	parts := []string{"curl"}
	if e.Method != "" && e.Method != "GET" {
		parts = append(parts, "-X", shellQuote(e.Method))
	}
	parts = append(parts, shellQuote(e.URL))
	if body != nil {
		auth := false
		for _, k := range slices.Sorted(maps.Keys(body.RequestHeaders)) {
			switch strings.ToLower(k) {
			case "content-length", "host", "connection":
				continue
			case "authorization":
				auth = true
			}
			parts = append(parts, "-H", shellQuote(k+": "+body.RequestHeaders[k]))
		}
		if !auth && body.HasAuthHeader != nil && *body.HasAuthHeader {
			parts = append(parts, "-H", shellQuote("Authorization: "+redact.Redacted))
		}
		if body.RequestBody != "" {
			parts = append(parts, "--data-raw", shellQuote(body.RequestBody))
		}
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// copyKeys close the copy menu: esc, or Y again; its choices' keys are
// the row's own (copyChoices).
type copyKeys struct {
	Close, Again key.Binding
}

// copyMenu is Y: the ways to copy the selected row, over the pane, each
// taken by its key and written to the terminal's clipboard (copy.go).
type copyMenu struct {
	keys  copyKeys
	items []copyItem // nil when closed
	title string     // names the row
	// out is the terminal, for OSC 52; inTmux wraps the sequence for
	// tmux's passthrough too.
	out    io.Writer
	inTmux bool
}

func newCopyMenu(out io.Writer, inTmux bool) copyMenu {
	return copyMenu{out: out, inTmux: inTmux, keys: copyKeys{
		Close: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "closes")),
		Again: key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "closes")),
	}}
}

func (c *copyMenu) show(items []copyItem, title string) { c.items, c.title = items, title }

func (c *copyMenu) isOpen() bool { return c.items != nil }

// write puts text on the clipboard.
func (c *copyMenu) write(text string) tea.Cmd { return copyCmd(c.out, text, c.inTmux) }

// Update takes every key while the menu is open: a choice's key copies it,
// esc or Y closes, any other key says what the menu is for.
func (c *copyMenu) Update(msg tea.KeyMsg) (tea.Cmd, bool) {
	if !c.isOpen() {
		return nil, false
	}
	if key.Matches(msg, c.keys.Close, c.keys.Again) {
		c.items = nil
		return nil, true
	}
	for _, it := range c.items {
		if msg.String() == it.key {
			c.items = nil
			return c.write(it.text), true
		}
	}
	return notice(msg.String() + " is not in the copy menu: esc closes it"), true
}

// View is the menu, width×height.
func (c *copyMenu) View(width, height int) string {
	return copyMenuView(c.items, c.title, width, height)
}

// copyMenuView is the copy menu over the pane, height lines tall: each
// choice's key, what it copies, and the start of the text.
func copyMenuView(items []copyItem, title string, width, height int) string {
	w := max(20, width-4)
	lines := []string{styleTitle.Render(fit("Copy "+clean(title), w)), ""}
	for _, it := range items {
		head := fmt.Sprintf("%s  %-20s ", it.key, it.label)
		lines = append(lines, fit(styleTabOn.Render(it.key)+head[1:]+styleDim.Render(clean(it.text)), w))
	}
	lines = append(lines, "", styleDim.Render(fit("a key copies over OSC 52 · esc closes", w)))
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Width(w).Height(max(1, height-2)).MaxHeight(height)
	return box.Render(strings.Join(lines, "\n"))
}
