package snapshot

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// The rules run in this order: a UUID or a timestamp contains digit runs the
// id rule would otherwise eat piecemeal, and a file location's line number
// must go with its file, not become an id.
var (
	uuidRe = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	// ISO 8601 date-times, and epoch seconds or milliseconds from 2001 on.
	tsRe = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?|\b1\d{9}(?:\d{3})?\b`)
	// A script or page location with a line (and column): a URL or path
	// ending in a known extension, then :line[:col].
	fileRe = regexp.MustCompile(`(?i)(?:[a-z][a-z0-9+.-]*://[^/\s]*)?[\w.~%@/-]*\.(?:js|mjs|cjs|jsx|ts|tsx|vue|svelte|html?|css)(?:\?[^\s:)]*)?:\d+(?::\d+)?`)
	// "line 42", "line 42:7", "line 42, column 7" in hand-written messages.
	lineRe = regexp.MustCompile(`(?i)\bline \d+(?:(?::|,\s*col(?:umn)?\s*)\d+)?`)
	// Numbers that identify rather than describe: 4+ digits, hex ids of 12+
	// characters, and short numbers after "id", "#" or "/". Short bare
	// numbers stay, so "status of 404" and "status of 500" remain different.
	idRe = regexp.MustCompile(`(?i)\b[0-9a-f]{12,}\b|\b\d{4,}\b|(?:\bid[=:# ]*|#|/)\d+\b`)
)

// MaxMessage caps a normalised message: enough to recognise an error,
// small enough that 50 of them keep a snapshot near the spec's 50 KB.
const MaxMessage = 300

// Normalize strips the dynamic parts of an error message (UUIDs, ids,
// timestamps, file:line locations) so that the same error seen twice
// matches itself.
func Normalize(msg string) string {
	msg = uuidRe.ReplaceAllString(msg, "[uuid]")
	msg = tsRe.ReplaceAllString(msg, "[timestamp]")
	msg = fileRe.ReplaceAllString(msg, "[file]")
	msg = lineRe.ReplaceAllString(msg, "line [n]")
	msg = idRe.ReplaceAllStringFunc(msg, func(m string) string {
		if !strings.ContainsAny(m, "0123456789") {
			return m // a long word of a-f letters is not an id
		}
		if strings.Trim(m, "0123456789abcdefABCDEF") == "" {
			return "[id]"
		}
		return strings.TrimRight(m, "0123456789") + "[id]" // keep "id=", "#", "/"
	})
	return capture.Truncate(strings.Join(strings.Fields(msg), " "), MaxMessage)
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
