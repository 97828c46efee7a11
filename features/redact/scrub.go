package redact

import (
	"net/url"
	"strings"
)

// URL redacts the values of secret query parameters, of secret parameters
// in a fragment that holds parameters (OAuth's #access_token=…), and the
// password of user info. A URL with none of those is returned as is, without
// allocating: every stored entry has one.
func URL(u string) string {
	if strings.IndexByte(u, '?') < 0 && strings.IndexByte(u, '#') < 0 && strings.IndexByte(u, '@') < 0 {
		return u
	}
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		host := rest
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			host = rest[:j]
		}
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			if c := strings.IndexByte(host[:at], ':'); c >= 0 {
				u = u[:i+3+c+1] + Redacted + u[i+3+at:]
			}
		}
	}
	q := strings.IndexByte(u, '?')
	h := strings.IndexByte(u, '#')
	if q >= 0 && (h < 0 || q < h) {
		end := len(u)
		if h > q {
			end = h
		}
		if s := Pairs(u[q+1 : end]); s != u[q+1:end] {
			u = u[:q+1] + s + u[end:]
			h = strings.IndexByte(u, '#')
		}
	}
	if h >= 0 && strings.IndexByte(u[h:], '=') >= 0 {
		if s := Pairs(u[h+1:]); s != u[h+1:] {
			u = u[:h+1] + s
		}
	}
	return u
}

// Pairs redacts the secret fields of an application/x-www-form-urlencoded
// text or a query string: name=value pairs separated by & (or ;).
func Pairs(s string) string {
	var b strings.Builder
	last := 0
	for start := 0; start <= len(s); {
		end := strings.IndexAny(s[start:], "&;")
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		if eq := strings.IndexByte(s[start:end], '='); eq > 0 {
			name, vs := s[start:start+eq], start+eq+1
			if strings.ContainsAny(name, "%+") {
				if n, err := url.QueryUnescape(name); err == nil {
					name = n
				}
			}
			if vs < end && !isMark(s[vs:end]) && IsSecretName(name) {
				b.WriteString(s[last:vs])
				b.WriteString(markOf(s[vs:end]))
				last = end
			}
		}
		start = end + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// Headers replaces the values of secret headers with Redacted, in place,
// and returns h.
func Headers(h map[string]string) map[string]string {
	for k, v := range h {
		if v != "" && IsSecretHeader(k) {
			h[k] = Redacted
		}
	}
	return h
}

// Body redacts the secrets of a request or response body: first the
// credentials of a known format anywhere in it (Formats), then the values
// of secret names by the body's content type or, when that says nothing,
// by its look: JSON (also cut short at a size cap, or a JavaScript object
// literal), a form, multipart form data, XML, or else any name=value and
// "name": value pairs in the text.
func Body(body, contentType string) string {
	if body == "" || strings.HasPrefix(body, "[Binary:") {
		return body
	}
	set := keywordsIn(body)
	if set == 0 {
		return body
	}
	body = formatsIn(body, set)
	ct := strings.ToLower(contentType)
	t := strings.TrimLeft(body, " \t\r\n")
	switch {
	case strings.Contains(ct, "json") || t != "" && (t[0] == '{' || t[0] == '['):
		return JSON(body)
	case strings.Contains(ct, "multipart/") || strings.HasPrefix(t, "--") && strings.Contains(body, "name="):
		return Multipart(body)
	case strings.Contains(ct, "x-www-form-urlencoded"):
		return Pairs(body)
	case strings.Contains(ct, "javascript") || strings.Contains(ct, "ecmascript"):
		return body // code: its names hold no values
	case strings.Contains(ct, "html"):
		return xmlElements(pairsText(body, false)) // HTML's own elements are never secret names; a page's own ones may be
	}
	return xmlElements(pairsText(body, false))
}

// valueStop holds the bytes that end an unquoted value.
var valueStop = byteSet(" \t\r\n&,;}]\"'\\")

func isNameByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '.' || c == '[' || c == ']'
}

// valueEnd reads the value starting at vs: a string in ", ' or \" quotes
// (to its closing quote, or the end of s), else a run up to a space or one
// of &,;}]"'\. It returns the opening quote ("" for none) and the end.
func valueEnd(s string, vs int) (string, int) {
	if vs >= len(s) {
		return "", vs
	}
	if q := s[vs]; q == '"' || q == '\'' || q == '\\' && vs+1 < len(s) && s[vs+1] == '"' {
		open := s[vs : vs+1]
		if q == '\\' {
			open = s[vs : vs+2]
		}
		if q != '\\' {
			return open, stringEnd(s, vs)
		}
		if k := strings.Index(s[vs+2:], open); k >= 0 {
			return open, vs + 2 + k + 2
		}
		return open, len(s)
	}
	k := vs
	for k < len(s) && !valueStop[s[k]] {
		k++
	}
	return "", k
}

// Multipart redacts the values of secret fields of multipart/form-data
// text; parts are found by their Content-Disposition name, so a body cut
// short is scrubbed as far as it goes.
func Multipart(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; ; {
		d := indexFold(s[i:], "content-disposition:")
		if d < 0 {
			break
		}
		d += i
		lineEnd := strings.IndexByte(s[d:], '\n')
		if lineEnd < 0 {
			break
		}
		line := s[d : d+lineEnd]
		hdrEnd := strings.Index(s[d:], "\r\n\r\n")
		sep := 4
		if hdrEnd < 0 {
			hdrEnd, sep = strings.Index(s[d:], "\n\n"), 2
		}
		if hdrEnd < 0 {
			break
		}
		vs := d + hdrEnd + sep
		ve := strings.Index(s[vs:], "\n--")
		if ve < 0 {
			ve = len(s)
		} else {
			ve += vs
			if ve > vs && s[ve-1] == '\r' {
				ve--
			}
		}
		if name := partName(line); name != "" && ve > vs && !isMark(s[vs:ve]) && IsSecretName(name) {
			b.WriteString(s[last:vs])
			b.WriteString(Redacted)
			last = ve
		}
		i = ve
		if i <= d {
			i = d + 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func partName(line string) string {
	for rest := line; ; {
		i := indexFold(rest, "name=")
		if i < 0 {
			return ""
		}
		if i > 0 && isAlnum(rest[i-1]) { // filename=
			rest = rest[i+5:]
			continue
		}
		v := rest[i+5:]
		if strings.HasPrefix(v, `"`) {
			if j := strings.IndexByte(v[1:], '"'); j >= 0 {
				return v[1 : j+1]
			}
			return v[1:]
		}
		if j := strings.IndexAny(v, "; \r"); j >= 0 {
			return v[:j]
		}
		return v
	}
}

// indexFold is strings.Index for an ASCII lowercase needle, ignoring case.
func indexFold(s, needle string) int {
	for i := 0; i+len(needle) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}

// markOf is what a secret name's value v becomes: the mark a credential of a
// known format leaves in free text ("sk_live_[redacted]") when v is one, so
// the AI reads the same mark however the key was written; else Redacted.
func markOf(v string) string {
	if ms := findFormats(v, keywordsIn(v), nil); len(ms) == 1 && ms[0].Start == 0 && ms[0].End == len(v) {
		return ms[0].Redacted(v)
	}
	return Redacted
}

// Named redacts a value stored under a name (a storage key, a cookie, an
// IndexedDB store): all of it when the name is secret, as markOf writes it
// ("eyJhbG…[redacted]" for a JWT); else the secrets in it, as in a body of
// no known type. A value the extension already redacted stays as it is.
func Named(name, v string) string {
	if IsSecretName(name) {
		if v == "" || isMark(v) {
			return v
		}
		return markOf(v)
	}
	return Body(v, "")
}

// MarkFormat is a format as the extension reads it to write a secret
// name's value as the mark the server would ("api_key=sk_live_[redacted]"),
// so the mark is the same wherever the value was first redacted. Regex and
// Keep are JavaScript sources (Go's inline (?i) moved to Flags).
type MarkFormat struct {
	ID       string  `json:"id"`
	Regex    string  `json:"re"`
	Flags    string  `json:"flags,omitempty"`
	Group    int     `json:"group"`
	Entropy  float64 `json:"entropy,omitempty"`
	Keep     string  `json:"keep"`
	KeepFlag string  `json:"keep_flags,omitempty"`
	Ellipsis string  `json:"ellipsis,omitempty"`
}

// MarkFormats are the formats with a public prefix whose expressions read
// the same in JavaScript; those with a check of their own (Bearer, Basic,
// AWS secrets, cards) keep the bare mark in the extension.
func MarkFormats() []MarkFormat {
	js := func(re string) (string, string, bool) {
		flags := ""
		if strings.Contains(re, "(?i)") {
			re, flags = strings.ReplaceAll(re, "(?i)", ""), "i"
		}
		return re, flags, !strings.Contains(strings.ReplaceAll(re, "(?:", ""), "(?")
	}
	var out []MarkFormat
	for _, f := range Formats {
		if f.Keep == "" || f.check != nil {
			continue
		}
		re, flags, ok := js(f.Regex)
		keep, keepFlags, ok2 := js(f.Keep)
		if !ok || !ok2 {
			continue
		}
		out = append(out, MarkFormat{ID: f.ID, Regex: re, Flags: flags, Group: f.Group, Entropy: f.Entropy,
			Keep: keep, KeepFlag: keepFlags, Ellipsis: ellipsis(f)})
	}
	return out
}
