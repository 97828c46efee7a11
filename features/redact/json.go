package redact

import (
	"encoding/json"
	"strings"
)

type frame struct {
	object bool
	secret bool // every value below is secret (the container's key was)
	key    bool // in an object: the value being read belongs to a secret key
	query  bool // in an object: the value being read is a "query" (GraphQL's text, when it reads as one)
}

// JSON redacts the values of secret keys at any depth: strings and numbers
// become "[redacted]"; the values inside an object or array held by a secret
// key are redacted one by one, so the shape stays; true, false and null stay.
// Non-secret string values are scanned for name=value pairs (a URL with ?token=…, JSON
// encoded in a string).
// It scans the text rather than decoding it, so the output keeps the input's
// key order and spacing, stays valid JSON when the input was, and a body cut
// short at a size cap (or a JavaScript object literal with bare keys) is
// scrubbed as far as it goes.
func JSON(s string) string {
	var b strings.Builder
	last := 0
	replace := func(from, to int, with string) {
		if b.Cap() == 0 {
			b.Grow(len(s) + 64) // one allocation for the common case
		}
		b.WriteString(s[last:from])
		b.WriteString(with)
		last = to
	}
	var stack []frame
	var names nameCache
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return &stack[len(stack)-1]
	}
	valueSecret := func() bool {
		f := top()
		if f == nil {
			return false
		}
		if f.object {
			return f.key || f.secret
		}
		return f.secret
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{' || c == '[':
			stack = append(stack, frame{object: c == '{', secret: valueSecret()})
			i++
		case c == '}' || c == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			i++
		case c == '"' || c == '\'':
			end := stringEnd(s, i)
			if f := top(); f != nil && f.object && isKey(s, end) {
				k := unquote(s[i:end])
				f.key, f.query = names.isSecret(k), k == "query"
			} else if valueSecret() {
				if !isMark(s[i+1 : max(end-1, i+1)]) {
					replace(i, end, `"`+Redacted+`"`)
				}
			} else if in := s[i+1 : max(end-1, i+1)]; f != nil && f.query && graphQL(in) {
				if t := quotedPairs(in); t != in { // its literals only: ($password: String!) declares a type
					replace(i+1, i+1+len(in), t)
				}
			} else if hasPair(in) {
				if t := pairsText(in, false); t != in { // a URL with ?token=…, encoded JSON
					replace(i+1, i+1+len(in), t)
				}
			}
			i = end
		case c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		default: // number, literal, or a bare key of a JavaScript object
			end := i + 1
			for end < len(s) && !bareEnd[s[end]] {
				end++
			}
			word := s[i:end]
			if f := top(); f != nil && f.object && isKey(s, end) {
				f.key, f.query = names.isSecret(word), word == "query"
			} else if valueSecret() && word != "true" && word != "false" && word != "null" {
				replace(i, end, `"`+Redacted+`"`)
			}
			i = end
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// stringEnd returns the index just past the string literal starting at i,
// or len(s) when it was cut short.
func stringEnd(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(s)
}

// isKey reports whether the token ending at end is followed by a colon.
func isKey(s string, end int) bool {
	for ; end < len(s); end++ {
		switch s[end] {
		case ' ', '\t', '\r', '\n':
		case ':':
			return true
		default:
			return false
		}
	}
	return false
}

// unquote returns a quoted key's text, decoding escapes only when present.
func unquote(q string) string {
	if len(q) < 2 || q[len(q)-1] != q[0] {
		return strings.Trim(q, `"'`)
	}
	if strings.IndexByte(q, '\\') < 0 || q[0] != '"' {
		return q[1 : len(q)-1]
	}
	var out string
	if err := json.Unmarshal([]byte(q), &out); err != nil {
		return q[1 : len(q)-1]
	}
	return out
}

// nameCache remembers the last keys seen: an array of objects repeats the
// same few keys, which are then looked up once.
type nameCache struct {
	names  [16]string
	secret [16]bool
	n      int
}

func (c *nameCache) isSecret(k string) bool {
	for i := range min(c.n, len(c.names)) {
		if c.names[i] == k {
			return c.secret[i]
		}
	}
	s := IsSecretName(k)
	c.names[c.n%len(c.names)], c.secret[c.n%len(c.names)] = k, s
	c.n++
	return s
}

// bareEnd holds the bytes that end a bare word in JSON or a JavaScript
// object literal.
var bareEnd = byteSet(",:}] \t\r\n{[\"'")

func byteSet(chars string) (t [256]bool) {
	for i := 0; i < len(chars); i++ {
		t[chars[i]] = true
	}
	return t
}

// hasPair reports whether s has an = or a :, where a pair could be.
func hasPair(s string) bool {
	return strings.IndexByte(s, ':') >= 0 || strings.IndexByte(s, '=') >= 0
}

// graphQL reports whether a "query" value reads as a GraphQL document: an
// operation or a fragment, or a selection set.
func graphQL(q string) bool {
	for { // spaces, also as JSON escapes ("\n  query …")
		t := strings.TrimLeft(q, " \t\r\n")
		for _, esc := range []string{`\n`, `\r`, `\t`} {
			t = strings.TrimPrefix(t, esc)
		}
		if t == q {
			break
		}
		q = t
	}
	if strings.HasPrefix(q, "{") {
		return true
	}
	for _, kw := range []string{"query", "mutation", "subscription", "fragment"} {
		if rest, ok := strings.CutPrefix(q, kw); ok && rest != "" && strings.IndexByte(" \t\r\n{(\\", rest[0]) >= 0 {
			return true
		}
	}
	return false
}

// quotedPairs is pairsText for a GraphQL document: only a quoted value of a
// secret name is one (login(password: \"…\")); an unquoted one is a type
// or a variable ($password: String!, password: $password).
func quotedPairs(s string) string {
	var b strings.Builder
	last := 0
	eachPair(s, func(name string, sep byte, vs, ve int, open string) {
		if open == "" || scrubbed(s, vs, ve, open) {
			return
		}
		b.WriteString(s[last:vs])
		b.WriteString(open + Redacted + open)
		last = ve
	})
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
