package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
)

// describe renders everything about a row's source as plain text: the
// title for the detail's first line and the body. bodies are the captured
// request and response payloads, to match to a request. Each kind of entry
// has its own describer below, which writes the body and returns the
// title. It is pure, for golden tests.
func describe(src any, bodies []capture.NetworkBody) (title, text string) {
	var b block
	switch e := src.(type) {
	case capture.LogEntry:
		title = describeLog(&b, e)
	case resourceEntry:
		title = describeResource(&b, e)
	case capture.NetworkEntry:
		title = describeRequest(&b, e, bodies)
	case capture.WSEvent:
		title = describeWS(&b, e)
	case capture.Action:
		title = describeAction(&b, e)
	case Setting:
		title = describeSetting(&b, e)
	case audit.Line:
		title = describeAudit(&b, e)
	case approval.Request:
		title = describeWaiting(&b, e)
	case StreamedMsg:
		title = describeStreamed(&b, e)
	default:
		title = "Details"
		j, _ := json.MarshalIndent(src, "", "  ")
		b.line(string(j))
	}
	return cleanBlock(title), strings.TrimRight(b.String(), "\n")
}

func describeLog(b *block, e capture.LogEntry) string {
	b.field("time", stampFull(e.TS.Time))
	b.field("level", e.Level)
	b.field("kind", e.Kind)
	b.field("source", e.Source)
	b.where(e.TabID, e.Page)
	b.field("screenshot", e.Screenshot)
	b.section("message", e.Message)
	for i, a := range e.Args {
		b.section(fmt.Sprintf("argument %d", i+2), pretty(a))
	}
	b.section("stack", e.Stack)
	if e.Kind != "" && e.Kind != "console" {
		return "Console " + e.Kind
	}
	return "Console " + e.Level
}

// describeRequest is a request with the headers and bodies captured for
// it, when there are some.
func describeRequest(b *block, e capture.NetworkEntry, bodies []capture.NetworkBody) string {
	b.field("time", stampFull(e.TS.Time))
	b.field("method", e.Method)
	b.field("url", e.URL)
	b.field("status", statusText(e))
	b.field("took", duration(e.DurationMS))
	b.field("type", e.Type)
	if e.Size > 0 {
		b.field("size", fmt.Sprintf("%d B", e.Size))
	}
	b.field("error", e.Error)
	b.where(e.TabID, e.Page)
	i := capture.BodyFor(e, bodies, nil)
	if i < 0 {
		b.line("")
		b.line("No headers or bodies captured for this request (network_bodies off, or not kept).")
		return "Request " + e.Method + " " + e.URL
	}
	body := bodies[i]
	b.field("content type", body.ContentType)
	b.headers("request headers", body.RequestHeaders)
	b.section("request body", pretty(body.RequestBody))
	b.headers("response headers", body.ResponseHeaders)
	b.section("response body", pretty(body.ResponseBody))
	if body.Truncated {
		b.line("(bodies cut at the server's bound)")
	}
	return "Request " + e.Method + " " + e.URL
}

func describeWS(b *block, e capture.WSEvent) string {
	b.field("time", stampFull(e.TS.Time))
	b.field("event", e.Event)
	b.field("connection", e.ID)
	b.field("url", e.URL)
	b.field("direction", e.Direction)
	if e.Size > 0 {
		b.field("size", fmt.Sprintf("%d B", e.Size))
	}
	if e.Code != 0 {
		b.field("code", fmt.Sprint(e.Code))
	}
	b.field("reason", e.Reason)
	b.where(e.TabID, e.Page)
	b.section("data", pretty(e.Data))
	if e.Truncated {
		b.line("(data cut at the capture bound)")
	}
	return "WebSocket " + e.Event + " " + e.ID
}

func describeAction(b *block, e capture.Action) string {
	b.field("time", stampFull(e.TS.Time))
	b.field("action", e.Type)
	if e.Source == "ai" {
		b.field("by", "the AI (interact)")
	}
	b.field("selector", e.Selector)
	b.field("text", e.Text)
	b.field("value", e.Value)
	b.field("input type", e.InputType)
	b.field("url", e.URL)
	b.where(e.TabID, e.Page)
	return "Action " + e.Type
}

func describeSetting(b *block, e Setting) string {
	b.field("setting", e.Name)
	b.field("value", show(e.Value))
	b.field("default", show(e.Default))
	b.field("set by", e.Agent)
	if e.ChangedAt != nil {
		b.field("changed", stampFull(*e.ChangedAt))
	}
	if e.Revoked {
		b.field("state", "REVOKED by you: the AI cannot set it until a allows it")
	}
	return "Setting " + e.Name
}

// describeAudit is an audit line as parsed, the script whole, and the
// line as written; a line that did not parse is shown as it is.
func describeAudit(b *block, e audit.Line) string {
	title := "Audit line"
	if e.Parsed {
		title = "Audit " + e.Event.Event
		ev := e.Event
		b.field("time", ev.TS)
		_, who := auditWho(ev)
		b.field("who", who)
		what := ev
		what.Script = "" // shown whole below
		b.field("what", auditWhat(what))
		if ev.Port != 0 {
			b.field("server", fmt.Sprintf("port %d, pid %d", ev.Port, ev.PID))
		}
		b.section("script", ev.Script)
	}
	b.section("line", pretty(e.Raw))
	return title
}

// describeWaiting is a pilot action waiting for the human.
func describeWaiting(b *block, e approval.Request) string {
	b.field("agent", e.Agent)
	b.field("action", e.Action)
	b.where(e.Tab, e.URL)
	b.field("selector", e.Selector)
	b.field("snapshot", e.Name)
	b.field("asked", stampFull(e.At))
	b.field("denied on its own at", stampFull(e.Deadline))
	b.section("script", e.Script)
	return "Waiting: AI " + e.Agent + " wants to " + e.Action
}

// describeStreamed is a notification sent to an AI, with the context and
// grouped events as the AI read them.
func describeStreamed(b *block, e StreamedMsg) string {
	b.field("agent", e.Agent)
	b.field("category", e.Category)
	b.field("severity", e.Severity)
	b.field("time", stampFull(e.Timestamp.Time))
	b.section("message", e.Message)
	if e.Context != nil {
		j, _ := json.MarshalIndent(e.Context, "", "  ")
		b.section("context", string(j))
	}
	if len(e.Events) > 0 {
		j, _ := json.MarshalIndent(e.Events, "", "  ")
		b.section(fmt.Sprintf("%d events", len(e.Events)), string(j))
	}
	return "Sent to AI " + e.Agent
}

// block builds a detail's text.
type block struct{ strings.Builder }

func (b *block) line(s string) { b.WriteString(s + "\n") }

// field writes "name: value" when there is a value.
func (b *block) field(name, value string) {
	if value != "" {
		b.line(name + ": " + cleanBlock(value))
	}
}

func (b *block) where(tab int, page string) {
	if tab != 0 {
		b.field("tab", fmt.Sprint(tab))
	}
	b.field("page", page)
}

// section writes a titled block of text, kept whole, line breaks and all.
func (b *block) section(name, text string) {
	if text == "" {
		return
	}
	b.line("")
	b.line("── " + name + " ──")
	b.line(cleanBlock(text))
}

func (b *block) headers(name string, h map[string]string) {
	if len(h) == 0 {
		return
	}
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(h)) {
		lines = append(lines, k+": "+h[k])
	}
	b.section(name, strings.Join(lines, "\n"))
}

func statusText(e capture.NetworkEntry) string {
	switch {
	case e.Aborted:
		return "aborted"
	case e.Failed || e.Status == 0:
		return "failed: no response"
	}
	return fmt.Sprint(e.Status)
}

// pretty indents s when it is JSON, and leaves it as it is otherwise.
func pretty(s string) string {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') || !json.Valid([]byte(t)) {
		return s
	}
	var out bytes.Buffer
	if json.Indent(&out, []byte(t), "", "  ") != nil {
		return s
	}
	return out.String()
}

// cleanBlock is clean for text shown whole: line breaks stay, tabs become
// spaces, and every other control character (escape sequences the page
// may have put in a message) becomes a space.
func cleanBlock(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\t", "  ")
	return strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// stampFull is a time with its date, for the detail view.
func stampFull(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("2006-01-02 15:04:05.000")
}
