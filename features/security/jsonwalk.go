package security

import "strings"

// A field is one member or element a JSON walk reaches: its key (an array
// element inherits the key of its array), its nesting depth (members of the
// top-level object are at depth 1), the first byte of its value ('"', '{',
// '[', 't', 'f', 'n', or a digit or '-'), and for strings and numbers the
// raw text (string escapes left as they are).
type field struct {
	depth int
	key   string
	kind  byte
	val   string
}

// walkJSON visits the fields of a JSON document down to maxDepth, reading
// the text once without building a tree: a full buffer of response bodies
// is scanned per audit, and encoding/json's tree is several times slower.
// Deeper values are skipped. It reports false when s is not a JSON object or
// array, and stops quietly at the first syntax error (a truncated body
// is still scanned up to the cut).
func walkJSON(s string, maxDepth int, visit func(field)) bool {
	w := walker{s: s, max: maxDepth, visit: visit}
	w.ws()
	if w.i >= len(s) || (s[w.i] != '{' && s[w.i] != '[') {
		return false
	}
	w.value(0, "")
	return true
}

type walker struct {
	s     string
	i     int
	max   int
	visit func(field)
}

func (w *walker) ws() {
	for w.i < len(w.s) {
		switch w.s[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// str reads a string whose opening quote is at w.i and returns its raw
// content.
func (w *walker) str() (string, bool) {
	start := w.i + 1
	j := start
	for {
		k := strings.IndexByte(w.s[j:], '"')
		if k < 0 {
			w.i = len(w.s)
			return "", false
		}
		j += k
		bs := 0
		for b := j - 1; b >= start && w.s[b] == '\\'; b-- {
			bs++
		}
		if bs%2 == 0 {
			w.i = j + 1
			return w.s[start:j], true
		}
		j++
	}
}

// value reads one value at depth d (its key is key) and reports whether
// the walk may go on.
func (w *walker) value(d int, key string) bool {
	w.ws()
	if w.i >= len(w.s) {
		return false
	}
	c := w.s[w.i]
	if d > 0 {
		f := field{depth: d, key: key, kind: c}
		if c == '"' {
			v, ok := w.str()
			if !ok {
				return false
			}
			f.val = v
			w.visit(f)
			return true
		}
		if c != '{' && c != '[' {
			start := w.i
			for w.i < len(w.s) && !strings.ContainsRune(",}] \t\r\n", rune(w.s[w.i])) {
				w.i++
			}
			f.val = w.s[start:w.i]
			w.visit(f)
			return true
		}
		w.visit(f)
	}
	if c != '{' && c != '[' {
		return false
	}
	if d >= w.max {
		return w.skip()
	}
	w.i++
	for first := true; ; first = false {
		w.ws()
		if w.i >= len(w.s) {
			return false
		}
		if (c == '{' && w.s[w.i] == '}') || (c == '[' && w.s[w.i] == ']') {
			w.i++
			return true
		}
		if !first {
			if w.s[w.i] != ',' {
				return false
			}
			w.i++
			w.ws()
		}
		k := key
		if c == '{' {
			if w.i >= len(w.s) || w.s[w.i] != '"' {
				return false
			}
			var ok bool
			if k, ok = w.str(); !ok {
				return false
			}
			w.ws()
			if w.i >= len(w.s) || w.s[w.i] != ':' {
				return false
			}
			w.i++
		}
		if !w.value(d+1, k) {
			return false
		}
	}
}

// skip passes over the object or array at w.i without visiting it, and
// without recursion, however deep it nests.
func (w *walker) skip() bool {
	depth := 0
	for w.i < len(w.s) {
		switch w.s[w.i] {
		case '"':
			if _, ok := w.str(); !ok {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				w.i++
				return true
			}
		}
		w.i++
	}
	return false
}
