package tui

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
)

// maxRowText bounds what a row keeps of a long message; the pane cuts it
// to the terminal's width anyway.
const maxRowText = 400

// Row layouts, shared by the rows and their panes' column titles.
const (
	consoleFormat = "%-12s %s %-9s %s"
	netFormat     = "%-12s %s %-7s %6s %-6s %6s %7s  %s"
	// netCompact is the Network pane where a URL would not fit: time, size
	// and took go first, so that the URL keeps its path.
	netCompact   = "%s %-7s %6s %-6s  %s"
	wsFormat     = "%-12s %-7s %-13s %s"
	auditFormat  = "%-12s  %-20s %s"
	actionFormat = "%-12s %-10s %s"
)

// socketCells is the width of the WebSocket pane's SOCKET column: a
// longer id (the extension's are 36-character UUIDs) keeps its first
// cells and ends in …; the detail view and the open-connections line show
// it whole.
const socketCells = 13

// clean makes page-controlled text safe to print: a console message may
// carry escape sequences meant to rewrite the human's terminal, so every
// control character (newlines included: one entry, one line) becomes a space.
func clean(s string) string {
	if len(s) > maxRowText*4 {
		s = s[:maxRowText*4]
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > maxRowText {
		s = string(r[:maxRowText-1]) + "…"
	}
	return s
}

// cleanCut is clean for the end of a row: the text without clean's mark,
// and how many characters clean left out, for the row to say.
func cleanCut(s string) (string, int) {
	c := clean(s)
	n := utf8.RuneCountInString(s)
	if n <= maxRowText && len(s) <= maxRowText*4 {
		return c, 0
	}
	c = strings.TrimSuffix(c, "…")
	return c, n - utf8.RuneCountInString(c)
}

// stamp is an entry's wall-clock time, to the millisecond.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "--:--:--.---"
	}
	return t.Local().Format("15:04:05.000")
}

// consoleRow renders one console entry; errors, exceptions and rejections
// are marked and red.
func consoleRow(e capture.LogEntry) row {
	level := e.Level
	c, mark := plain, " "
	switch {
	case e.Level == "error" || e.Kind == "exception" || e.Kind == "rejection":
		c, mark = bad, "✖"
		if e.Kind == "exception" || e.Kind == "rejection" {
			level = e.Kind[:min(len(e.Kind), 9)]
		}
	case e.Level == "warn":
		c, mark = warn, "▲"
	case e.Level == "info":
		c = info
	case e.Level == "debug":
		c = dim
	}
	text := e.Message
	if len(e.Args) > 0 {
		text += " " + strings.Join(e.Args, " ")
	}
	msg, cut := cleanCut(text)
	line := fmt.Sprintf(consoleFormat, stamp(e.TS.Time), mark, level, msg)
	if cut == 0 && e.Source != "" {
		line += "  @ " + clean(e.Source)
	}
	if cut == 0 && e.Screenshot != "" {
		line += "  [screenshot " + clean(e.Screenshot) + "]"
	}
	r := newRow(c, line)
	r.src, r.cut = e, cut
	return r
}

// streamedRow renders a notification sent to an AI in the Console pane,
// marked with an arrow and the agent, in the AI's colour, at the time it
// was sent: the human sees what interrupted the AI, and when.
func streamedRow(s StreamedMsg, sent time.Time) row {
	r := newRow(ai, fmt.Sprintf(consoleFormat, stamp(sent), "→", "to AI", clean(s.Agent+": "+s.Message)))
	r.src = s
	return r
}

// networkRow renders one request; failures (4xx, 5xx, no response,
// aborted) are marked and red.
func networkRow(e capture.NetworkEntry) row { return networkRowAt(e, false) }

// networkRowAt is networkRow, compact without the time, size and took.
func networkRowAt(e capture.NetworkEntry, compact bool) row {
	c, mark := plain, " "
	status := fmt.Sprint(e.Status)
	switch {
	case e.Aborted:
		c, mark, status = warn, "▲", "abort"
	case e.Failed || e.Status == 0:
		c, mark, status = bad, "✖", "fail"
	case e.Status >= 400:
		c, mark = bad, "✖"
	case e.Status >= 300:
		c = info
	}
	took := duration(e.DurationMS)
	if e.DurationMS == 0 && status == "fail" {
		took = "-"
	}
	line := fmt.Sprintf(netFormat, stamp(e.TS.Time), mark, clean(e.Method), status, netType(e), sizeText(e.Size), took, clean(e.URL))
	if compact {
		line = fmt.Sprintf(netCompact, mark, clean(e.Method), status, netType(e), clean(e.URL))
	}
	if e.Error != "" {
		line += "  (" + clean(e.Error) + ")"
	}
	r := newRow(c, line)
	r.src = e
	return r
}

func duration(ms float64) string {
	switch {
	case ms >= 10000:
		return fmt.Sprintf("%.0fs", ms/1000)
	case ms >= 1000:
		return fmt.Sprintf("%.2fs", ms/1000)
	}
	return fmt.Sprintf("%.0fms", ms)
}

// wsRow renders one WebSocket event: lifecycle events by name, messages
// by direction with their payload.
//
// url is the socket's address when the event does not carry one (close and
// error events name it only through their connection id).
func wsRow(e capture.WSEvent, url string) row {
	if e.URL != "" {
		url = e.URL
	}
	c, what, text := plain, e.Event, ""
	switch e.Event {
	case "open":
		c, what, text = ok, "● open", url
	case "close":
		c, what = dim, "○ close"
		text = fmt.Sprintf("code %d", e.Code)
		if e.Reason != "" {
			text += " " + e.Reason
		}
		if url != "" {
			text += "  " + url
		}
	case "error":
		c, what, text = bad, "✖ error", strings.TrimSpace(e.Reason+"  "+url)
	case "message":
		what = "? msg"
		switch e.Direction {
		case "incoming":
			what = "↓ in"
		case "outgoing":
			what, c = "↑ out", info
		}
		text = e.Data
		if e.Truncated {
			text += "…"
		}
		if e.Size > 0 {
			text += fmt.Sprintf("  (%d B)", e.Size)
		}
	}
	r := newRow(c, fmt.Sprintf(wsFormat, stamp(e.TS.Time), what, fit(clean(e.ID), socketCells), clean(text)))
	r.src, r.at = e, e.TS.Time
	return r
}

// actionRow renders one user action: what, on which element, with what.
func actionRow(a capture.Action) row {
	c, what := plain, a.Selector
	switch a.Type {
	case "navigation":
		c, what = info, a.URL
	case "submit":
		c = ok
	}
	if a.Text != "" {
		what += fmt.Sprintf(" %q", a.Text)
	}
	if a.Value != "" {
		what += " = " + a.Value
	}
	kind := clean(a.Type)
	if a.Source == "ai" {
		// The AI's own action: the audit's mark and colour, so it never reads as yours.
		c, kind = ai, "AI ▶ "+kind
	}
	r := newRow(c, fmt.Sprintf(actionFormat, stamp(a.TS.Time), kind, clean(strings.TrimSpace(what))))
	r.src = a
	return r
}

// auditRow renders one audit line readably: who (the AI by its client's
// name, you, or the server), then what changed. The AI's lines are marked.
func auditRow(l audit.Line) row {
	if !l.Parsed {
		r := newRow(dim, "? "+clean(l.Raw))
		r.src = l
		return r
	}
	e := l.Event
	when := "--:--:--.---"
	if t, err := time.Parse(time.RFC3339Nano, e.TS); err == nil {
		when = stamp(t)
	}
	c, who := auditWho(e)
	r := newRow(c, fmt.Sprintf(auditFormat, when, clean(who), clean(auditWhat(e))))
	r.port, r.src = e.Port, l
	if t, err := time.Parse(time.RFC3339Nano, e.TS); err == nil {
		r.at = t
	}
	return r
}

// auditWho is who an audit event's change came from, and its colour: the
// AI by its client's name, you, or the server.
func auditWho(e audit.Event) (class, string) {
	switch e.Source {
	case "ai":
		return ai, "AI ▶ " + e.Agent
	case "human":
		return human, "you"
	case "server":
		return dim, "server"
	}
	return plain, e.Source
}

// auditWhat says what an audit event did, in words.
func auditWhat(e audit.Event) string {
	switch e.Event {
	case "capture_override":
		return fmt.Sprintf("set %s: %v → %v", e.Setting, e.From, e.To)
	case "capture_reset":
		return "reset capture settings" + paren(e.Reason)
	case "capture_revoked":
		if e.From != nil {
			return fmt.Sprintf("revoked %s: %v → %v", e.Setting, e.From, e.To)
		}
		return fmt.Sprintf("revoked %s (stays %v)", e.Setting, e.To)
	case "capture_allowed":
		return "allowed the AI to set " + e.Setting + " again"
	case "pilot_blocked":
		return "blocked the Web Pilot"
	case "pilot_unblocked":
		return "unblocked the Web Pilot"
	case "approval_rule_made":
		return "made " + e.Rule
	case "approval_rule_ended":
		return e.Rule + " ended: " + e.Result
	case "audit_reads":
		return auditReadsWhat(e.To == true)
	case "tab_freed":
		return fmt.Sprintf("freed tab %d: %v no longer owns it", e.Tab, e.From)
	}
	// Pilot actions and anything newer: the event and its details.
	parts := []string{e.Event}
	for _, kv := range [][2]string{{"action", e.Action}, {"selector", e.Selector}, {"name", e.Name},
		{"setting", e.Setting}, {"result", e.Result}, {"error", e.Error}, {"reason", e.Reason}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	if e.RuleID != 0 {
		parts = append(parts, fmt.Sprintf("by rule %d", e.RuleID))
	}
	if e.Script != "" {
		parts = append(parts, "script="+e.Script)
	}
	return strings.Join(parts, " ")
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
