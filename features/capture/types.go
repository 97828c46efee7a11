package capture

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Time is a capture timestamp. The extension sends epoch milliseconds
// (Date.now()); the AI reads RFC 3339 with milliseconds, which it parses
// without arithmetic.
type Time struct{ time.Time }

// TimeLayout is how every captured timestamp is rendered.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// MarshalJSON renders the time in UTC with millisecond precision.
func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(TimeLayout) + `"`), nil
}

// MarshalJSONTo is MarshalJSON for json/v2 encoders (the history's), which
// it spares an allocation and a detour per entry.
func (t Time) MarshalJSONTo(enc *jsontext.Encoder) error {
	var buf [40]byte
	b := append(buf[:0], '"')
	b = append(t.UTC().AppendFormat(b, TimeLayout), '"')
	return enc.WriteValue(b)
}

// UnmarshalJSON accepts epoch milliseconds or an RFC 3339 string.
func (t *Time) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		p, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return fmt.Errorf("ts: want epoch milliseconds or RFC 3339, got %q", s)
		}
		t.Time = p
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	if ms, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		t.Time = time.UnixMilli(ms)
		return nil
	}
	ms, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("ts: want epoch milliseconds, got %s", b)
	}
	t.Time = time.UnixMilli(int64(ms))
	return nil
}

// LogEntry is one console call, uncaught exception or unhandled rejection.
type LogEntry struct {
	TS      Time     `json:"ts"`
	Level   string   `json:"level"`          // debug, log, info, warn, error
	Kind    string   `json:"kind,omitempty"` // console, exception, rejection
	Message string   `json:"message"`
	Args    []string `json:"args,omitempty"`   // previews of arguments after the first
	Stack   string   `json:"stack,omitempty"`  // JS stack, trimmed
	Source  string   `json:"source,omitempty"` // script URL:line:column
	TabID   int      `json:"tab,omitempty"`
	Page    string   `json:"page,omitempty"` // URL of the page that produced it
	// Screenshot names a file captured for this error (screenshot_on_error).
	Screenshot string `json:"screenshot,omitempty"`
	// Doc and Seq are the entry's place in its page's sequence (PROTOCOL.md,
	// "Sequence numbers"); read at ingest and cleared before it is stored.
	Doc string `json:"dc,omitempty"`
	Seq int64  `json:"sq,omitempty"`
	// Filtered, on an entry of kind "filtered", counts by level the console
	// calls the page did not capture under the log_level in Message; the
	// server counts it (server/filtered.go) and never stores it.
	Filtered map[string]int `json:"filtered,omitempty"`
}

// NetworkEntry is one request of a page: its document, a script, a
// stylesheet, an image, a font… (the extension's webRequest capture) or a
// fetch or XHR (the page's hooks, with its phases and bodies).
type NetworkEntry struct {
	TS         Time    `json:"ts"`
	Method     string  `json:"method"`
	URL        string  `json:"url"`
	Status     int     `json:"status,omitempty"` // 0 when the request never got a response
	DurationMS float64 `json:"duration_ms"`
	Type       string  `json:"type,omitempty"` // fetch, xhr, document, script, stylesheet, image, font…
	Size       int64   `json:"size,omitempty"` // response bytes when known
	Mime       string  `json:"mime,omitempty"` // the response's media type, when the browser said
	Timing     *Timing `json:"timing,omitempty"`
	Failed     bool    `json:"failed,omitempty"`
	Aborted    bool    `json:"aborted,omitempty"`
	Error      string  `json:"error,omitempty"`
	TabID      int     `json:"tab,omitempty"`
	Page       string  `json:"page,omitempty"`
	// Doc and Seq are the entry's place in its page's sequence (PROTOCOL.md,
	// "Sequence numbers"); read at ingest and cleared before it is stored.
	Doc string `json:"dc,omitempty"`
	Seq int64  `json:"sq,omitempty"`
}

// Timing is a fetch or XHR's phases, in milliseconds, from its entry in the
// page's performance timeline: DNS lookup, TCP connect (TLS included), TLS,
// waiting for the first byte after the request was sent, and the download.
// A phase the browser does not measure is absent; an entry without any has
// no Timing (a cross-origin request without Timing-Allow-Origin). A request
// the extension listed from the browser's own events has only wait (from its
// start to its answer's headers, the connection included) and download.
type Timing struct {
	DNS      float64 `json:"dns,omitempty"`
	Connect  float64 `json:"connect,omitempty"`
	TLS      float64 `json:"tls,omitempty"`
	Wait     float64 `json:"wait,omitempty"`
	Download float64 `json:"download,omitempty"`
}

// Elapsed is the whole request in milliseconds as far as the capture knows
// it: a fetch's duration_ms ends at its headers, so the download its timing
// measured comes on top; never less than the phases.
func (e NetworkEntry) Elapsed() float64 {
	d := max(e.DurationMS, 0)
	t := e.Timing
	if t == nil {
		return d
	}
	if e.Type == "fetch" {
		d += t.Download
	}
	return max(d, t.DNS+t.Connect+t.Wait+t.Download)
}

// NetworkBody is the request and response payload of one fetch or XHR.
type NetworkBody struct {
	TS              Time              `json:"ts"`
	Method          string            `json:"method"`
	URL             string            `json:"url"`
	Status          int               `json:"status,omitempty"`
	DurationMS      float64           `json:"duration_ms,omitempty"`
	ContentType     string            `json:"content_type,omitempty"`
	RequestBody     string            `json:"request_body,omitempty"`
	ResponseBody    string            `json:"response_body,omitempty"`
	RequestHeaders  map[string]string `json:"request_headers,omitempty"`
	ResponseHeaders map[string]string `json:"response_headers,omitempty"`
	Truncated       bool              `json:"truncated,omitempty"`
	// HasAuthHeader says whether the request carried an Authorization-like
	// header, whose value capture never keeps; nil when the extension did
	// not say (an older one).
	HasAuthHeader *bool  `json:"has_auth_header,omitempty"`
	TabID         int    `json:"tab,omitempty"`
	Page          string `json:"page,omitempty"`
	// Doc and Seq are the entry's place in its page's sequence (PROTOCOL.md,
	// "Sequence numbers"); read at ingest and cleared before it is stored.
	Doc string `json:"dc,omitempty"`
	Seq int64  `json:"sq,omitempty"`
}

// WSEvent is one WebSocket lifecycle event or message.
type WSEvent struct {
	TS        Time   `json:"ts"`
	Event     string `json:"event"` // open, close, error, message
	ID        string `json:"id"`    // connection id, stable for the socket's life
	URL       string `json:"url,omitempty"`
	Direction string `json:"direction,omitempty"` // incoming, outgoing (messages only)
	Data      string `json:"data,omitempty"`
	Size      int64  `json:"size,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	Code      int    `json:"code,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// Messages is "off" on an open, close or error event when the page
	// captured no messages then (ws_mode lifecycle): the socket's counts
	// are not counts (WSConnection.Messages).
	Messages string `json:"messages,omitempty"`
	TabID    int    `json:"tab,omitempty"`
	Page     string `json:"page,omitempty"`
	// Doc and Seq are the entry's place in its page's sequence (PROTOCOL.md,
	// "Sequence numbers"); read at ingest and cleared before it is stored.
	Doc string `json:"dc,omitempty"`
	Seq int64  `json:"sq,omitempty"`
}

// Action is one user interaction: click, input, submit or navigation.
type Action struct {
	TS        Time   `json:"ts"`
	Type      string `json:"type"`               // click, input, submit, navigation
	Selector  string `json:"selector,omitempty"` // stable CSS selector of the target
	Text      string `json:"text,omitempty"`     // visible text of the target, trimmed
	Value     string `json:"value,omitempty"`    // input value; never for passwords
	InputType string `json:"input_type,omitempty"`
	URL       string `json:"url,omitempty"` // navigation target
	// Load marks a navigation that loaded a document (not a pushState or
	// a hash change).
	Load bool `json:"load,omitempty"`
	// Source is "ai" for the AI's own actions (interact), absent for the
	// human's.
	Source string `json:"source,omitempty"`
	TabID  int    `json:"tab,omitempty"`
	Page   string `json:"page,omitempty"`
	// Doc and Seq are the entry's place in its page's sequence (PROTOCOL.md,
	// "Sequence numbers"); read at ingest and cleared before it is stored.
	Doc string `json:"dc,omitempty"`
	Seq int64  `json:"sq,omitempty"`
	// Role is a clicked target's ARIA role (button, link), Name its accessible
	// name where it differs from Text, and Matches how many elements of the
	// page had that role and name at the click: 1 means they locate it.
	Role    string `json:"role,omitempty"`
	Name    string `json:"name,omitempty"`
	Matches int    `json:"matches,omitempty"`
	// Within is, when Matches > 1, the nearest container in which role and
	// name were unique, as a locator finds it.
	Within *Scope `json:"within,omitempty"`
	// Order keeps Doc and Seq past ingest, never encoded: a generated test
	// replays actions of the same millisecond in their page's order.
	Order Place `json:"-"`
}

// Scope is a container: by its role and accessible name (a named region,
// form, dialog…), by its role and a text it holds (a list item, a row), or
// by a selector (an id or a test id).
type Scope struct {
	Role     string `json:"role,omitempty"`
	Name     string `json:"name,omitempty"`
	Text     string `json:"text,omitempty"`
	Selector string `json:"selector,omitempty"`
}

// Place is an entry's place in its page's sequence: its document's key and
// its number there.
type Place struct {
	Doc string
	Seq int64
}

// KeepPlace copies Doc and Seq to Order before ingest clears them.
func (a *Action) KeepPlace() { a.Order = Place{a.Doc, a.Seq} }

// Page is what the extension reports about the tab it tracks.
type Page struct {
	TabID int    `json:"tab"`
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
	// Active is true when the tab is the active tab of the focused window.
	Active bool `json:"active,omitempty"`
	TS     Time `json:"ts"`
}

// Where returns the entry's tab and page fields, so a result can state them
// once when every entry shares them.
func (e *LogEntry) Where() (*int, *string) { return &e.TabID, &e.Page }

// Where returns the entry's tab and page fields.
func (e *NetworkEntry) Where() (*int, *string) { return &e.TabID, &e.Page }

// Where returns the entry's tab and page fields.
func (b *NetworkBody) Where() (*int, *string) { return &b.TabID, &b.Page }

// Where returns the entry's tab and page fields.
func (e *WSEvent) Where() (*int, *string) { return &e.TabID, &e.Page }

// Where returns the entry's tab and page fields.
func (a *Action) Where() (*int, *string) { return &a.TabID, &a.Page }

// When is the time the entry was captured (zero when the page sent none).
func (e *LogEntry) When() time.Time { return e.TS.Time }

// When is LogEntry's.
func (e *NetworkEntry) When() time.Time { return e.TS.Time }

// When is LogEntry's.
func (b *NetworkBody) When() time.Time { return b.TS.Time }

// When is LogEntry's.
func (e *WSEvent) When() time.Time { return e.TS.Time }

// When is LogEntry's.
func (a *Action) When() time.Time { return a.TS.Time }

// Sequenced gives an entry's tab, time and place in its page's sequence,
// which ingest reads and clears (Losses).
func (e *LogEntry) Sequenced() (int, time.Time, *string, *int64) {
	return e.TabID, e.TS.Time, &e.Doc, &e.Seq
}

// Sequenced is LogEntry's.
func (e *NetworkEntry) Sequenced() (int, time.Time, *string, *int64) {
	return e.TabID, e.TS.Time, &e.Doc, &e.Seq
}

// Sequenced is LogEntry's.
func (b *NetworkBody) Sequenced() (int, time.Time, *string, *int64) {
	return b.TabID, b.TS.Time, &b.Doc, &b.Seq
}

// Sequenced is LogEntry's.
func (e *WSEvent) Sequenced() (int, time.Time, *string, *int64) {
	return e.TabID, e.TS.Time, &e.Doc, &e.Seq
}

// Sequenced is LogEntry's.
func (a *Action) Sequenced() (int, time.Time, *string, *int64) {
	return a.TabID, a.TS.Time, &a.Doc, &a.Seq
}
