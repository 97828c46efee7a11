package capture

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gasoline-dev/gasoline/features/redact"
)

// Limits the server enforces whatever the extension sent.
const (
	MaxRequestBody  = 8 << 10
	MaxResponseBody = 16 << 10
	MaxWSData       = 4 << 10
	MaxMessage      = 4 << 10
	MaxStack        = 4 << 10
	MaxArgs         = 10
	MaxArg          = 500
	MaxURL          = 2 << 10
	MaxText         = 200
	MaxHeaders      = 50
)

// A header's name and value are cut at these many bytes.
const (
	maxHeaderName  = 100
	maxHeaderValue = 500
)

// sanitizeHeaders caps the headers and redacts the values of secret ones
// (the name stays, so the AI sees that the header was sent).
func sanitizeHeaders(h map[string]string) map[string]string {
	if len(h) == 0 {
		return nil
	}
	if headersInShape(h) { // as the extension sends them: redacted where they are
		return redact.Headers(h)
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		if len(out) >= MaxHeaders {
			break
		}
		out[strings.ToLower(Truncate(k, maxHeaderName))] = Truncate(v, maxHeaderValue)
	}
	return redact.Headers(out)
}

// headersInShape reports whether h is already within the caps with its
// names in lower case, as sanitizeHeaders would leave it.
func headersInShape(h map[string]string) bool {
	if len(h) > MaxHeaders {
		return false
	}
	for k, v := range h {
		if len(k) > maxHeaderName || len(v) > maxHeaderValue {
			return false
		}
		for i := 0; i < len(k); i++ {
			if k[i] >= utf8.RuneSelf || ('A' <= k[i] && k[i] <= 'Z') {
				return false
			}
		}
	}
	return true
}

// scrub redacts the secrets of a body already cut at max; a redacted value
// can be longer than the secret it hides, so the result is cut again.
func scrub(body, contentType string, max int) string {
	return Truncate(redact.Body(body, contentType), max)
}

// scrubURL redacts a URL's secret parameters and the credentials of a
// known format in its query or fragment (a Google key in ?key=…), then
// caps it.
func scrubURL(u string) string {
	u = redact.URL(Truncate(u, MaxURL))
	if q := strings.IndexAny(u, "?#"); q >= 0 {
		if c := redact.Credentials(u[q:]); c != u[q:] {
			u = u[:q] + c
		}
	}
	return Truncate(u, MaxURL)
}

// Truncate cuts s to at most n bytes without splitting a UTF-8 sequence;
// every size limit in Gasoline cuts text this way.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// truncateFlag is truncate that also reports whether it cut.
func truncateFlag(s string, n int) (string, bool) {
	t := Truncate(s, n)
	return t, len(t) < len(s)
}

// binaryContentType reports types whose bodies are summarised, never stored.
func binaryContentType(ct string) bool {
	ct = strings.ToLower(ct)
	for _, p := range []string{"image/", "video/", "audio/", "font/", "application/wasm", "application/octet-stream", "application/pdf", "application/zip"} {
		if strings.HasPrefix(ct, p) {
			return true
		}
	}
	return false
}

func binarySummary(size int, ct string) string {
	if ct == "" {
		return fmt.Sprintf("[Binary: %d bytes]", size)
	}
	return fmt.Sprintf("[Binary: %d bytes, type: %s]", size, ct)
}

// scrubText redacts the secrets of text the page wrote (a message, a
// stack, a title), read a little past the cap so that a secret the cap
// cuts is still recognised, then caps it.
func scrubText(s string, max int) string {
	return Truncate(redact.Message(Truncate(s, max+scrubMargin)), max)
}

// scrubArg is scrubText for a console argument's preview: an object's is
// JSON or a JavaScript literal, whose keys name its secrets.
func scrubArg(s string) string {
	t := Truncate(s, MaxArg+scrubMargin)
	if t != "" && (t[0] == '{' || t[0] == '[') {
		return Truncate(redact.Body(t, ""), MaxArg)
	}
	return Truncate(redact.Message(t), MaxArg)
}

// scrubMargin is how far past a cap text is read for secrets: longer than
// any credential whose format Gasoline knows but a private key's.
const scrubMargin = 256

func (e *LogEntry) sanitize() {
	e.Level = strings.ToLower(e.Level)
	e.Stack = scrubText(trimStackHead(e.Stack, e.Message), MaxStack)
	e.Message = scrubText(e.Message, MaxMessage)
	e.Source = scrubURL(e.Source)
	e.Page = scrubURL(e.Page)
	if len(e.Args) > MaxArgs {
		e.Args = e.Args[:MaxArgs]
	}
	for i := range e.Args {
		e.Args[i] = scrubArg(e.Args[i])
	}
	if e.Kind == "console" {
		e.Kind = "" // the common case goes unsaid in results
	}
}

func (e *NetworkEntry) sanitize() {
	e.Method = strings.ToUpper(Truncate(e.Method, 16))
	e.URL = scrubURL(e.URL)
	e.Mime = strings.ToLower(Truncate(e.Mime, 100))
	e.Error = scrubText(e.Error, MaxText)
	e.Page = scrubURL(e.Page)
	e.Timing = e.Timing.sanitized()
}

// sanitized is t with each phase a time the store keeps, nil when none is
// left: the extension's numbers are not trusted to be finite or sane.
func (t *Timing) sanitized() *Timing {
	if t == nil {
		return nil
	}
	c := *t
	for _, v := range []*float64{&c.DNS, &c.Connect, &c.TLS, &c.Wait, &c.Download} {
		*v = Millis(*v)
	}
	if c == (Timing{}) {
		return nil
	}
	return &c
}

// Millis makes v a time in milliseconds the stores keep, to a tenth: NaN,
// infinite, negative or past an hour (no browser measures those) become 0,
// "not measured".
func Millis(v float64) float64 {
	if math.IsNaN(v) || v < 0 || v > float64(time.Hour/time.Millisecond) {
		return 0
	}
	return math.Round(v*10) / 10
}

func (b *NetworkBody) sanitize() {
	b.Method = strings.ToUpper(Truncate(b.Method, 16))
	b.URL = scrubURL(b.URL)
	b.Page = scrubURL(b.Page)
	b.ContentType = Truncate(b.ContentType, MaxText)
	if binaryContentType(b.ContentType) && b.ResponseBody != "" && !strings.HasPrefix(b.ResponseBody, "[Binary:") {
		b.ResponseBody = binarySummary(len(b.ResponseBody), b.ContentType)
	}
	var cutReq, cutResp bool
	b.RequestBody, cutReq = truncateFlag(b.RequestBody, MaxRequestBody)
	b.ResponseBody, cutResp = truncateFlag(b.ResponseBody, MaxResponseBody)
	b.Truncated = b.Truncated || cutReq || cutResp
	b.RequestHeaders = sanitizeHeaders(b.RequestHeaders)
	b.ResponseHeaders = sanitizeHeaders(b.ResponseHeaders)
	b.RequestBody = scrub(b.RequestBody, b.RequestHeaders["content-type"], MaxRequestBody)
	b.ResponseBody = scrub(b.ResponseBody, b.ContentType, MaxResponseBody)
}

func (e *WSEvent) sanitize() {
	if e.Messages != "off" {
		e.Messages = ""
	}
	e.ID = Truncate(e.ID, 64)
	e.URL = scrubURL(e.URL)
	e.Page = scrubURL(e.Page)
	e.Reason = scrubText(e.Reason, MaxText)
	if e.Size == 0 && e.Data != "" {
		e.Size = int64(len(e.Data))
	}
	var cut bool
	e.Data, cut = truncateFlag(e.Data, MaxWSData)
	e.Truncated = e.Truncated || cut
	e.Data = scrub(e.Data, "", MaxWSData) // a message is JSON or text: Body tells them apart
}

func (a *Action) sanitize() {
	a.sanitizeTarget()
	a.Type = strings.ToLower(Truncate(a.Type, 32))
	a.Selector = Truncate(a.Selector, 500)
	a.Text = scrubText(a.Text, MaxText)
	a.URL = scrubURL(a.URL)
	a.Page = scrubURL(a.Page)
	if redact.IsSecretField(a.InputType, a.Selector) {
		a.Value = ""
	}
	a.Value = scrubText(a.Value, MaxText)
	if a.Source != "ai" {
		a.Source = "" // the human's: the only other source there is
	}
}

func (e *LogEntry) stamp() *Time     { return &e.TS }
func (e *NetworkEntry) stamp() *Time { return &e.TS }
func (b *NetworkBody) stamp() *Time  { return &b.TS }
func (e *WSEvent) stamp() *Time      { return &e.TS }
func (a *Action) stamp() *Time       { return &a.TS }

func (e *LogEntry) check() string {
	if msg := oneOf("level", e.Level, "debug", "log", "info", "warn", "error"); msg != "" {
		return msg
	}
	return oneOf("kind", e.Kind, "", "exception", "rejection")
}

func (e *NetworkEntry) check() string {
	if e.URL == "" || e.Method == "" {
		return "method and url are required"
	}
	return ""
}

func (b *NetworkBody) check() string {
	if b.URL == "" || b.Method == "" {
		return "method and url are required"
	}
	return ""
}

func (a *Action) check() string {
	return oneOf("type", a.Type, "click", "input", "submit", "navigation", "keypress")
}

func (e *WSEvent) check() string {
	if msg := oneOf("event", e.Event, "open", "close", "error", "message"); msg != "" {
		return msg
	}
	if e.ID == "" {
		return "id: the connection id is required"
	}
	if e.Event == "message" {
		return oneOf("direction", e.Direction, "incoming", "outgoing")
	}
	return ""
}

// trimStackHead drops a JS stack's first line when it only restates the
// message ("TypeError: x" above "    at f (...)"): the AI reads it once.
func trimStackHead(stack, message string) string {
	head, rest, ok := strings.Cut(stack, "\n")
	if !ok || strings.HasPrefix(strings.TrimSpace(head), "at ") {
		return stack
	}
	if h := strings.TrimSpace(head); h != "" && (strings.Contains(message, h) || strings.Contains(h, message)) {
		return rest
	}
	return stack
}

// sanitizeTarget keeps what a click says of its target only in the form a
// generated test reads.
func (a *Action) sanitizeTarget() {
	a.Role = roleName(a.Role)
	a.Name = scrubText(a.Name, MaxText)
	if a.Role == "" || a.Matches < 0 {
		a.Matches = 0
	}
	a.Matches = min(a.Matches, maxMatches)
	if w := a.Within; w != nil {
		w.Role = roleName(w.Role)
		w.Name = scrubText(w.Name, MaxText)
		w.Text = scrubText(w.Text, MaxText)
		w.Selector = Truncate(w.Selector, 500)
		if *w == (Scope{}) || a.Matches < 2 {
			a.Within = nil
		}
	}
}

// maxMatches bounds an action's count of elements like its target: the
// extension stops counting there (content/actions.js, CANDIDATES_MAX).
const maxMatches = 3000

// roleName keeps an ARIA role as the extension sends it (a lowercase word),
// "" for anything else.
func roleName(r string) string {
	if len(r) == 0 || len(r) > 20 {
		return ""
	}
	for i := 0; i < len(r); i++ {
		if r[i] < 'a' || r[i] > 'z' {
			return ""
		}
	}
	return r
}
