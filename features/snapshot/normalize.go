package snapshot

import (
	"net/url"
	"strings"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// MaxMessage caps a normalised message: enough to recognise an error,
// small enough that 50 of them keep a snapshot near the spec's 50 KB.
const MaxMessage = 300

// maxScan bounds the text normalised, which bounds its cost: what lies past
// it could not survive MaxMessage anyway, short of dozens of UUIDs.
const maxScan = 4 * MaxMessage

// Normalize strips the dynamic parts of an error message so that the same
// error seen twice matches itself:
//
//	UUIDs                          → [uuid]
//	ISO 8601 times, epoch s or ms  → [timestamp]
//	script.js:12:7, https://…/a.js:3 → [file]
//	"line 42", "line 42, column 7" → line [n]
//	4+ digits, hex ids of 12+, and short numbers after "id", "#" or "/" → [id]
//
// Short bare numbers stay, so "status of 404" and "status of 500" remain
// different errors. It is a hand-written single pass rather than regular
// expressions: it runs on every console entry of every snapshot, and Go's
// regexp engine took ~60 µs per rule per message.
func Normalize(msg string) string {
	msg = strings.Join(strings.Fields(capture.Truncate(msg, maxScan)), " ")
	if strings.ContainsAny(msg, "0123456789") { // every rule needs a digit
		msg = stripDynamic(msg)
	}
	return strings.TrimRight(capture.Truncate(msg, MaxMessage), " ")
}

func stripDynamic(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		wordStart := i == 0 || !isWord(s[i-1])
		tokenStart := i == 0 || isSep(s[i-1])
		if wordStart {
			if n := uuidAt(s[i:]); n > 0 {
				b.WriteString("[uuid]")
				i += n
				continue
			}
			if n := timestampAt(s[i:]); n > 0 {
				b.WriteString("[timestamp]")
				i += n
				continue
			}
		}
		if tokenStart {
			if n := fileAt(s[i:]); n > 0 {
				b.WriteString("[file]")
				i += n
				continue
			}
		}
		if wordStart {
			if n := lineAt(s[i:]); n > 0 {
				b.WriteString("line [n]")
				i += n
				continue
			}
			if keep, n := idAt(s[i:]); n > 0 {
				b.WriteString(s[i : i+keep])
				b.WriteString("[id]")
				i += n
				continue
			}
		}
		if c := s[i]; c == '#' || c == '/' {
			if d := digits(s[i+1:]); d > 0 && boundaryAt(s, i+1+d) {
				b.WriteByte(c)
				b.WriteString("[id]")
				i += 1 + d
				continue
			}
		}
		// Nothing starts here: copy up to the next place a rule could.
		j := i + 1
		if isWord(s[i]) {
			for j < len(s) && isWord(s[j]) {
				j++
			}
		}
		b.WriteString(s[i:j])
		i = j
	}
	return b.String()
}

func isWord(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// isSep ends a URL or path token.
func isSep(c byte) bool { return strings.IndexByte(" \t\n\r()[]{}<>\"'`,;", c) >= 0 }

// boundaryAt reports whether a word ends at s[:i].
func boundaryAt(s string, i int) bool { return i >= len(s) || !isWord(s[i]) }

func digits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// pattern matches s against a shape: 'h' hex, 'd' digit, anything else itself.
func pattern(s, shape string) bool {
	if len(s) < len(shape) {
		return false
	}
	for i := 0; i < len(shape); i++ {
		switch c := shape[i]; c {
		case 'h':
			if !isHex(s[i]) {
				return false
			}
		case 'd':
			if !isDigit(s[i]) {
				return false
			}
		default:
			if s[i] != c {
				return false
			}
		}
	}
	return true
}

func uuidAt(s string) int {
	const shape = "hhhhhhhh-hhhh-hhhh-hhhh-hhhhhhhhhhhh"
	if pattern(s, shape) && boundaryAt(s, len(shape)) {
		return len(shape)
	}
	return 0
}

// timestampAt matches an ISO 8601 date-time (seconds, fraction and zone
// optional) or a 10- or 13-digit epoch from 2001 on.
func timestampAt(s string) int {
	if d := digits(s); (d == 10 || d == 13) && s[0] == '1' && boundaryAt(s, d) {
		return d
	}
	if !pattern(s, "dddd-dd-dd") || len(s) < 16 || (s[10] != 'T' && s[10] != ' ') || !pattern(s[11:], "dd:dd") {
		return 0
	}
	n := 16
	if pattern(s[n:], ":dd") {
		n += 3
		if n+1 < len(s) && s[n] == '.' && isDigit(s[n+1]) {
			n += 1 + digits(s[n+1:])
		}
	}
	switch {
	case n < len(s) && s[n] == 'Z':
		n++
	case pattern(s[n:], "+dd:dd") || pattern(s[n:], "-dd:dd"):
		n += 6
	case pattern(s[n:], "+dddd") || pattern(s[n:], "-dddd"):
		n += 5
	}
	return n
}

var scriptExt = []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".vue", ".svelte", ".html", ".htm", ".css"}

// fileAt matches a URL or path token that names a script or page and a
// line: "https://app.test/static/main.js?v=2:120:17", "./src/App.tsx:42".
func fileAt(s string) int {
	end := 0
	for end < len(s) && !isSep(s[end]) {
		end++
	}
	tok := s[:end]
	// Find ":line" after the extension; a URL's own "://" and ":port" come before it.
	for k := strings.LastIndexByte(tok, ':'); k > 0; k = strings.LastIndexByte(tok[:k], ':') {
		d := digits(tok[k+1:])
		if d == 0 {
			continue
		}
		path := tok[:k]
		if q := strings.IndexByte(path, '?'); q >= 0 {
			path = path[:q]
		}
		if i := strings.LastIndexByte(path, ':'); i >= 0 && isDigit(tok[i+1]) && digits(tok[i+1:]) == k-i-1 {
			path = tok[:i] // "file.js:12:7": k is the column's colon
			if q := strings.IndexByte(path, '?'); q >= 0 {
				path = path[:q]
			}
		}
		lower := strings.ToLower(path)
		for _, ext := range scriptExt {
			if strings.HasSuffix(lower, ext) && len(path) > len(ext) {
				return k + 1 + d
			}
		}
	}
	return 0
}

// lineAt matches "line 42", "line 42:7" and "line 42, col[umn] 7", any case.
func lineAt(s string) int {
	if len(s) < 6 || !strings.EqualFold(s[:5], "line ") {
		return 0
	}
	d := digits(s[5:])
	if d == 0 {
		return 0
	}
	n := 5 + d
	rest := s[n:]
	switch {
	case len(rest) > 1 && rest[0] == ':' && isDigit(rest[1]):
		n += 1 + digits(rest[1:])
	case len(rest) > 1 && rest[0] == ',':
		r := strings.TrimLeft(rest[1:], " ")
		lr := strings.ToLower(r)
		for _, w := range []string{"column", "col"} {
			if strings.HasPrefix(lr, w) {
				t := strings.TrimLeft(r[len(w):], " ")
				if d := digits(t); d > 0 {
					n += len(rest) - len(t) + d
				}
				break
			}
		}
	}
	return n
}

// idAt matches an id at a word start and says how much of it to keep:
// 4+ digits, 12+ hex characters with a digit, or "id" [=:# ]* digits.
func idAt(s string) (keep, n int) {
	h, hasDigit := 0, false
	for h < len(s) && isHex(s[h]) {
		hasDigit = hasDigit || isDigit(s[h])
		h++
	}
	if d := digits(s); d >= 4 && boundaryAt(s, d) {
		return 0, d
	}
	if h >= 12 && hasDigit && boundaryAt(s, h) {
		return 0, h
	}
	if len(s) > 2 && strings.EqualFold(s[:2], "id") {
		k := 2
		for k < len(s) && strings.IndexByte("=:# ", s[k]) >= 0 {
			k++
		}
		if d := digits(s[k:]); d > 0 && boundaryAt(s, k+d) {
			return k, k + d
		}
	}
	return 0, 0
}

// MaxPath caps an endpoint's path.
const MaxPath = 300

// EndpointPath is how a request URL is grouped: its path without query or
// fragment, and with its host when that differs from the page's, so
// "/api/users?page=2" and "/api/users?page=3" are one endpoint.
func EndpointPath(raw, pageHost string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		p := raw
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			p = p[:i]
		}
		return capture.Truncate(p, MaxPath)
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.Host != pageHost {
		p = u.Host + p
	}
	return capture.Truncate(p, MaxPath)
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Host
	}
	return ""
}
