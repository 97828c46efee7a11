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

	"github.com/charmbracelet/bubbles/viewport"
	"github.com/charmbracelet/x/ansi"

	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
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

// describe renders everything about a row's source as plain text: the
// title for the detail's first line and the body. bodies are the captured
// request and response payloads, to match to a request. It is pure, for
// golden tests.
func describe(src any, bodies []capture.NetworkBody) (title, text string) {
	var b block
	switch e := src.(type) {
	case capture.LogEntry:
		title = "Console " + e.Level
		if e.Kind != "" && e.Kind != "console" {
			title = "Console " + e.Kind
		}
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
	case resourceEntry:
		title = describeResource(&b, e)
	case capture.NetworkEntry:
		title = "Request " + e.Method + " " + e.URL
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
		if i := capture.BodyFor(e, bodies, nil); i >= 0 {
			body := bodies[i]
			b.field("content type", body.ContentType)
			b.headers("request headers", body.RequestHeaders)
			b.section("request body", pretty(body.RequestBody))
			b.headers("response headers", body.ResponseHeaders)
			b.section("response body", pretty(body.ResponseBody))
			if body.Truncated {
				b.line("(bodies cut at the server's bound)")
			}
		} else {
			b.line("")
			b.line("No headers or bodies captured for this request (network_bodies off, or not kept).")
		}
	case capture.WSEvent:
		title = "WebSocket " + e.Event + " " + e.ID
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
	case capture.Action:
		title = "Action " + e.Type
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
	case Setting:
		title = "Setting " + e.Name
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
	case audit.Line:
		title = "Audit line"
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
	case approval.Request:
		title = "Waiting: AI " + e.Agent + " wants to " + e.Action
		b.field("agent", e.Agent)
		b.field("action", e.Action)
		b.where(e.Tab, e.URL)
		b.field("selector", e.Selector)
		b.field("snapshot", e.Name)
		b.field("asked", stampFull(e.At))
		b.field("denied on its own at", stampFull(e.Deadline))
		b.section("script", e.Script)
	case StreamedMsg:
		title = "Sent to AI " + e.Agent
		b.field("agent", e.Agent)
		b.field("category", e.Category)
		b.field("severity", e.Severity)
		b.field("time", stampFull(e.Timestamp.Time))
		b.section("message", e.Message)
		// The context and grouped events as the AI read them.
		if e.Context != nil {
			j, _ := json.MarshalIndent(e.Context, "", "  ")
			b.section("context", string(j))
		}
		if len(e.Events) > 0 {
			j, _ := json.MarshalIndent(e.Events, "", "  ")
			b.section(fmt.Sprintf("%d events", len(e.Events)), string(j))
		}
	default:
		title = "Details"
		j, _ := json.MarshalIndent(src, "", "  ")
		b.line(string(j))
	}
	return cleanBlock(title), strings.TrimRight(b.String(), "\n")
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
