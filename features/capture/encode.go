package capture

import (
	"math"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// AppendJSON appends e as JSON, as json/v2 with legacy omitempty encodes
// it (invalid UTF-8 becomes U+FFFD), a few times faster: console entries
// are what a flood is made of, and the history encodes each one before
// ingest answers.
func (e LogEntry) AppendJSON(b []byte) []byte {
	b = append(b, `{"ts":"`...)
	b = append(e.TS.UTC().AppendFormat(b, TimeLayout), '"')
	b = field(b, "level", e.Level, false)
	b = field(b, "kind", e.Kind, true)
	b = field(b, "message", e.Message, false)
	if len(e.Args) > 0 {
		b = append(b, `,"args":[`...)
		for i, a := range e.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b, _ = jsontext.AppendQuote(b, a)
		}
		b = append(b, ']')
	}
	b = field(b, "stack", e.Stack, true)
	b = field(b, "source", e.Source, true)
	b = intField(b, "tab", int64(e.TabID))
	b = field(b, "page", e.Page, true)
	b = field(b, "screenshot", e.Screenshot, true)
	return append(b, '}')
}

// AppendJSON appends e as LogEntry.AppendJSON does a console entry: a busy
// page's requests are the other flood the history encodes before ingest
// answers.
func (e NetworkEntry) AppendJSON(b []byte) []byte {
	b = requestHead(b, e.TS, e.Method, e.URL, e.Status)
	b = appendFloat(append(b, `,"duration_ms":`...), e.DurationMS)
	b = field(b, "type", e.Type, true)
	b = intField(b, "size", e.Size)
	b = timingField(b, e.Timing)
	b = boolField(b, "failed", e.Failed)
	b = boolField(b, "aborted", e.Aborted)
	b = field(b, "error", e.Error, true)
	return requestTail(b, e.TabID, e.Page)
}

// AppendJSON appends b as LogEntry.AppendJSON does a console entry, its
// headers in name order.
func (b NetworkBody) AppendJSON(dst []byte) []byte {
	dst = requestHead(dst, b.TS, b.Method, b.URL, b.Status)
	if b.DurationMS != 0 {
		dst = appendFloat(append(dst, `,"duration_ms":`...), b.DurationMS)
	}
	dst = field(dst, "content_type", b.ContentType, true)
	dst = field(dst, "request_body", b.RequestBody, true)
	dst = field(dst, "response_body", b.ResponseBody, true)
	dst = headersField(dst, "request_headers", b.RequestHeaders)
	dst = headersField(dst, "response_headers", b.ResponseHeaders)
	dst = boolField(dst, "truncated", b.Truncated)
	if b.HasAuthHeader != nil {
		dst = strconv.AppendBool(append(dst, `,"has_auth_header":`...), *b.HasAuthHeader)
	}
	return requestTail(dst, b.TabID, b.Page)
}

// requestHead opens a network entry or body: its time, method, URL and
// status (left out when 0), the fields both types start with.
func requestHead(b []byte, ts Time, method, url string, status int) []byte {
	b = append(b, `{"ts":"`...)
	b = append(ts.UTC().AppendFormat(b, TimeLayout), '"')
	b = field(b, "method", method, false)
	b = field(b, "url", url, false)
	return intField(b, "status", int64(status))
}

// requestTail closes a network entry or body with the tab and page the
// extension stamped (each left out when empty).
func requestTail(b []byte, tab int, page string) []byte {
	b = intField(b, "tab", int64(tab))
	b = field(b, "page", page, true)
	return append(b, '}')
}

// intField appends ,"name":v unless v is 0.
func intField(b []byte, name string, v int64) []byte {
	if v == 0 {
		return b
	}
	return strconv.AppendInt(append(append(append(b, ',', '"'), name...), '"', ':'), v, 10)
}

// boolField appends ,"name":true when v is.
func boolField(b []byte, name string, v bool) []byte {
	if !v {
		return b
	}
	return append(append(append(b, ',', '"'), name...), `":true`...)
}

// timingField appends ,"timing":{...} with the phases that are not 0,
// unless t is nil.
func timingField(b []byte, t *Timing) []byte {
	if t == nil {
		return b
	}
	b = append(b, `,"timing":{`...)
	open := len(b)
	for _, p := range [...]struct {
		name string
		v    float64
	}{{"dns", t.DNS}, {"connect", t.Connect}, {"tls", t.TLS}, {"wait", t.Wait}, {"download", t.Download}} {
		if p.v == 0 {
			continue
		}
		if len(b) > open {
			b = append(b, ',')
		}
		b = appendFloat(append(append(append(b, '"'), p.name...), '"', ':'), p.v)
	}
	return append(b, '}')
}

// headersField appends ,"name":{...} in name order, unless h is empty.
func headersField(b []byte, name string, h map[string]string) []byte {
	if len(h) == 0 {
		return b
	}
	b = append(append(append(b, ',', '"'), name...), `":{`...)
	var arr [16]string // a request's headers fit: no allocation to sort them
	keys := arr[:0]
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b, _ = jsontext.AppendQuote(b, k)
		b = append(b, ':')
		b, _ = jsontext.AppendQuote(b, h[k])
	}
	return append(b, '}')
}

// appendFloat appends f as JSON numbers are written (ECMAScript's rule):
// plain digits from 1e-6 to 1e21, an exponent outside.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-07 → e-7
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// field appends ,"name":"v", unless v is empty and omitted when empty.
func field(b []byte, name, v string, omitEmpty bool) []byte {
	if omitEmpty && v == "" {
		return b
	}
	b = append(append(append(b, ',', '"'), name...), '"', ':')
	b, _ = jsontext.AppendQuote(b, v) // invalid UTF-8 is replaced, and said, not lost
	return b
}
