package capture

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
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

var sensitiveHeader = regexp.MustCompile(`(?i)token|secret|key|password|^authorization$|^cookie$|^set-cookie$|^proxy-authorization$`)

// SensitiveHeader reports whether a header must never be stored.
func SensitiveHeader(name string) bool { return sensitiveHeader.MatchString(name) }

// sanitizeHeaders drops secret-bearing headers and caps the rest.
func sanitizeHeaders(h map[string]string) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		if SensitiveHeader(k) || len(out) >= MaxHeaders {
			continue
		}
		out[strings.ToLower(Truncate(k, 100))] = Truncate(v, 500)
	}
	if len(out) == 0 {
		return nil
	}
	return out
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

// passwordish matches input types and names whose values are never stored.
var passwordish = regexp.MustCompile(`(?i)password|passwd|secret|token|cvv|cvc|card.?number|cc-`)

func (e *LogEntry) sanitize() {
	e.Level = strings.ToLower(e.Level)
	e.Message = Truncate(e.Message, MaxMessage)
	e.Stack = Truncate(trimStackHead(e.Stack, e.Message), MaxStack)
	e.Source = Truncate(e.Source, MaxURL)
	e.Page = Truncate(e.Page, MaxURL)
	if len(e.Args) > MaxArgs {
		e.Args = e.Args[:MaxArgs]
	}
	for i := range e.Args {
		e.Args[i] = Truncate(e.Args[i], MaxArg)
	}
	if e.Kind == "console" {
		e.Kind = "" // the common case goes unsaid in results
	}
}

func (e *NetworkEntry) sanitize() {
	e.Method = strings.ToUpper(Truncate(e.Method, 16))
	e.URL = Truncate(e.URL, MaxURL)
	e.Error = Truncate(e.Error, MaxText)
	e.Page = Truncate(e.Page, MaxURL)
}

func (b *NetworkBody) sanitize() {
	b.Method = strings.ToUpper(Truncate(b.Method, 16))
	b.URL = Truncate(b.URL, MaxURL)
	b.Page = Truncate(b.Page, MaxURL)
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
}

func (e *WSEvent) sanitize() {
	e.ID = Truncate(e.ID, 64)
	e.URL = Truncate(e.URL, MaxURL)
	e.Page = Truncate(e.Page, MaxURL)
	e.Reason = Truncate(e.Reason, MaxText)
	if e.Size == 0 && e.Data != "" {
		e.Size = int64(len(e.Data))
	}
	var cut bool
	e.Data, cut = truncateFlag(e.Data, MaxWSData)
	e.Truncated = e.Truncated || cut
}

func (a *Action) sanitize() {
	a.Type = strings.ToLower(Truncate(a.Type, 32))
	a.Selector = Truncate(a.Selector, 500)
	a.Text = Truncate(a.Text, MaxText)
	a.URL = Truncate(a.URL, MaxURL)
	a.Page = Truncate(a.Page, MaxURL)
	if passwordish.MatchString(a.InputType) || passwordish.MatchString(a.Selector) {
		a.Value = ""
	}
	a.Value = Truncate(a.Value, MaxText)
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
