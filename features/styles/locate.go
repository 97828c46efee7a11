package styles

import "strings"

// Locate finds a style rule in a stylesheet's text, for browsers that do
// not say where a rule is (Firefox's CSSOM has no line numbers): the nth
// rule (from 0) whose selector is selectorText, looking inside @media,
// @supports, @layer and other blocks. It returns the line and column
// (1-based) of the rule's last declaration of prop, else of its selector.
// Selectors are compared without blanks and quotes, as the browser
// re-serialises them.
func Locate(text, selectorText string, nth int, prop string) (line, col int, ok bool) {
	want := squash(selectorText)
	seen := 0
	found := false
	walkRules(text, func(prelude string, at, body, end int) bool {
		if squash(prelude) != want {
			return true
		}
		if seen < nth {
			seen++
			return true
		}
		found = true
		line, col = position(text, at)
		if d := lastDecl(text[body:end], prop); d >= 0 {
			line, col = position(text, body+d)
		}
		return false
	})
	return line, col, found
}

// squash drops what serialisation changes: blanks and quotes.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '\f', '"', '\'':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

func position(text string, at int) (line, col int) {
	line = 1 + strings.Count(text[:at], "\n")
	return line, at - strings.LastIndexByte(text[:at], '\n')
}

// walkRules calls fn for every style rule of the text, in order: its
// selector, where the selector starts, and its block's body [body, end).
// At-rule blocks are entered; fn returning false stops.
func walkRules(text string, fn func(prelude string, at, body, end int) bool) {
	var walk func(from, to int) bool
	walk = func(from, to int) bool {
		i := from
		for i < to {
			i = skipBlank(text, i, to)
			if i >= to {
				return true
			}
			start := i
			stop := scanTo(text, i, to, "{;}")
			if stop >= to || text[stop] != '{' {
				i = stop + 1 // a statement (@import …;) or stray text
				continue
			}
			close := matching(text, stop, to)
			prelude := text[start:stop]
			if strings.HasPrefix(prelude, "@") {
				if !walk(stop+1, close) {
					return false
				}
			} else if !fn(prelude, start, stop+1, close) {
				return false
			}
			i = close + 1
		}
		return true
	}
	walk(0, len(text))
}

// skipBlank moves past blanks and comments.
func skipBlank(text string, i, to int) int {
	for i < to {
		switch {
		case strings.ContainsRune(" \t\r\n\f", rune(text[i])):
			i++
		case strings.HasPrefix(text[i:], "/*"):
			j := strings.Index(text[i+2:to], "*/")
			if j < 0 {
				return to
			}
			i += j + 4
		case strings.HasPrefix(text[i:], "<!--"), strings.HasPrefix(text[i:], "-->"):
			i += 3
		default:
			return i
		}
	}
	return i
}

// scanTo finds the first of stops at bracket depth 0, past strings and
// comments; to when there is none.
func scanTo(text string, i, to int, stops string) int {
	depth := 0
	for i < to {
		c := text[i]
		switch {
		case c == '\\':
			i++
		case c == '"' || c == '\'':
			i = endString(text, i, to)
		case strings.HasPrefix(text[i:], "/*"):
			j := strings.Index(text[i+2:to], "*/")
			if j < 0 {
				return to
			}
			i += j + 3
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case depth == 0 && strings.IndexByte(stops, c) >= 0:
			return i
		}
		i++
	}
	return to
}

func endString(text string, i, to int) int {
	q := text[i]
	for i++; i < to && text[i] != q; i++ {
		if text[i] == '\\' {
			i++
		}
	}
	return i
}

// matching is the index of the brace closing the one at open (to at worst).
func matching(text string, open, to int) int {
	i := open + 1
	for i < to {
		j := scanTo(text, i, to, "{}")
		if j >= to {
			return to
		}
		if text[j] == '}' {
			return j
		}
		i = matching(text, j, to) + 1
	}
	return to
}

// lastDecl finds the last declaration of prop in a rule's body, -1 if none.
func lastDecl(body, prop string) int {
	found := -1
	i := 0
	for i < len(body) {
		i = skipBlank(body, i, len(body))
		if i >= len(body) {
			break
		}
		stop := scanTo(body, i, len(body), ";{}")
		if stop < len(body) && body[stop] == '{' { // a nested rule
			i = matching(body, stop, len(body)) + 1
			continue
		}
		if name, _, ok := strings.Cut(body[i:stop], ":"); ok && strings.EqualFold(strings.TrimSpace(name), prop) {
			found = i
		}
		i = stop + 1
	}
	return found
}
