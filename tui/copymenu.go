package tui

import (
	"encoding/json"
	"fmt"
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

// openCopy opens the copy menu on the selected row.
func (m *Model) openCopy() tea.Cmd {
	src, line, ok := m.pick()
	if !ok {
		return notice("nothing to copy: no row is selected")
	}
	m.copyMenu = copyChoices(src, line, m.bodyList())
	m.copyTitle, _ = describe(src, nil)
	return nil
}

// copyKey takes a choice of the open copy menu, or closes it.
func (m *Model) copyKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Back) || key.Matches(msg, m.keys.Copy) {
		m.copyMenu = nil
		return nil
	}
	for _, it := range m.copyMenu {
		if msg.String() == it.key {
			m.copyMenu = nil
			return copyCmd(m.out, it.text, m.inTmux)
		}
	}
	return notice(msg.String() + " is not in the copy menu: esc closes it")
}
