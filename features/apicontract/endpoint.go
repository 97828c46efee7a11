package apicontract

import (
	"net/url"
	"strings"
)

// Endpoint groups a request with the others of its kind: method and path,
// query and fragment dropped, dynamic path segments replaced by :id.
// "GET https://a.io/users/42?x=1" is "GET /users/:id".
func Endpoint(method, rawURL string) string {
	_, path := Split(rawURL)
	return strings.ToUpper(method) + " " + path
}

// Split returns a URL's origin and its normalized path.
func Split(rawURL string) (origin, path string) {
	u, err := url.Parse(rawURL)
	if err != nil {
		path, _, _ = strings.Cut(rawURL, "?")
		return "", NormalizePath(path)
	}
	if u.Scheme != "" && u.Host != "" {
		origin = u.Scheme + "://" + u.Host
	}
	return origin, NormalizePath(u.EscapedPath())
}

// NormalizePath replaces each dynamic segment of a path by :id.
func NormalizePath(p string) string {
	if p == "" {
		return "/"
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if dynamic(s) {
			segs[i] = ":id"
		}
	}
	return strings.Join(segs, "/")
}

// dynamic reports segments that are identifiers rather than names: numbers,
// UUIDs, hex hashes of 8 or more characters with at least one digit (so
// words like "deadface" stay), and opaque tokens of 20 or more letters and
// digits mixed (nanoid, base64 ids, JWTs), which would otherwise make every
// call a new endpoint and keep a token in the endpoint's name.
func dynamic(s string) bool {
	if s == "" {
		return false
	}
	var digits, hex, alnum int
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			hex++
			alnum++
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			hex++
			alnum++
		case c >= 'g' && c <= 'z', c >= 'G' && c <= 'Z', c == '_', c == '-', c == '.':
			alnum++
		}
	}
	n := len(s)
	switch {
	case digits == n:
		return true
	case isUUID(s):
		return true
	case hex == n && n >= 8 && digits > 0:
		return true
	case alnum == n && n >= 20 && digits > 0 && digits < n:
		return true
	}
	return false
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
