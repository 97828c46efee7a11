package redact

import (
	"slices"
	"strings"
)

// Text redacts the secrets of free text in a body or a WebSocket message:
// credentials of a known format (Formats), the values of name=value and
// name: value pairs with a secret name (the name may be quoted, also as
// \"name\" inside an encoded JSON string; the value keeps its quotes), and
// XML elements with a secret name.
func Text(s string) string {
	set := keywordsIn(s)
	if set == 0 {
		return s
	}
	return xmlElements(pairsText(formatsIn(s, set), false))
}

// Message redacts the secrets of text the page wrote for people to read: a
// console message, an error's stack, a page title, an input's value. As
// Text, except that an unquoted value that reads as a word, a number, a
// position in a file or code ("Session: restored", "auth.js:12:5",
// "token:e.token") is no secret, nor is a placeholder ("********").
func Message(s string) string {
	set := keywordsIn(s)
	if set == 0 {
		return s
	}
	return xmlElements(pairsText(formatsIn(s, set), true))
}

// Credentials redacts the credentials of a known format in s, and nothing
// else.
func Credentials(s string) string { return formatsIn(s, keywordsIn(s)) }

// formatsIn replaces each credential of a known format with its public
// prefix and Redacted ("ghp_[redacted]"); set is keywordsIn(s).
func formatsIn(s string, set uint64) string {
	if set&^nameBit == 0 {
		return s
	}
	ms := findFormats(s, set, nil)
	if len(ms) == 0 {
		return s
	}
	sortMatches(ms)
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m.Start])
		b.WriteString(m.Redacted(s))
		last = m.End
	}
	b.WriteString(s[last:])
	return b.String()
}

func sortMatches(ms []Match) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].Start < ms[j-1].Start; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

// pairsText redacts the values of secret names in name=value and
// name: value pairs; free is Message's reading of unquoted values.
func pairsText(s string, free bool) string {
	var b strings.Builder
	last := 0
	eachPair(s, func(name string, sep byte, vs, ve int, open string) {
		v := s[vs:ve]
		if scrubbed(s, vs, ve, open) || free && !secretValue(name, sep, v, open) {
			return
		}
		if b.Cap() == 0 {
			b.Grow(len(s) + 64)
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

// eachPair calls fn for the value of each secret name in a name=value or
// name: value pair of s: sep is the = or :, open the value's opening quote
// ("" for none), [vs, ve) the value with its quotes. One pass: at each = or
// :, the name before it is read backwards and only a secret one has its
// value read.
func eachPair(s string, fn func(name string, sep byte, vs, ve int, open string)) {
	if !hasPair(s) {
		return
	}
	var names nameCache
	for i := 0; i < len(s); i++ {
		if s[i] != '=' && s[i] != ':' {
			continue
		}
		if s[i] == '=' && (i+1 < len(s) && s[i+1] == '=' || i > 0 && strings.IndexByte("=!<>", s[i-1]) >= 0) {
			continue // a comparison: a == b, a !== b, a >= b
		}
		j := i
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
		if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
			j--
			if j > 0 && s[j-1] == '\\' {
				j--
			}
		}
		e := j
		for j > 0 && isNameByte(s[j-1]) {
			j--
		}
		if j == e || !names.isSecret(s[j:e]) {
			continue
		}
		vs := i + 1
		for vs < len(s) && (s[vs] == ' ' || s[vs] == '\t') {
			vs++
		}
		open, ve := valueEnd(s, vs)
		if ve == vs {
			continue
		}
		fn(s[j:e], s[i], vs, ve, open)
		i = ve - 1
	}
}

// scrubbed reports whether the value [vs, ve) is already a redacted mark:
// "[redacted]", "ghp_[redacted]", or the word of a mark ("Bearer" in
// "Bearer [redacted]").
func scrubbed(s string, vs, ve int, open string) bool {
	inner := strings.TrimSuffix(strings.TrimPrefix(s[vs:ve], open), open)
	if open == "" && ve < len(s) && s[ve] == ']' && strings.HasSuffix(inner, "[redacted") {
		inner += "]"
	}
	if strings.Contains(inner, "[redacted") {
		return isMark(inner)
	}
	rest, ok := strings.CutPrefix(s[ve:], " "+Redacted)
	return ok && isMark(s[vs:len(s)-len(rest)])
}

// secretValue is Message's reading of a secret name's value.
func secretValue(name string, sep byte, v, open string) bool {
	inner := strings.TrimSuffix(strings.TrimPrefix(v, open), open)
	if inner == "" || placeholder(inner) {
		return false
	}
	if open != "" {
		return true
	}
	if sep == '=' {
		// Minified code: auth=t, this.token=e.token, f=function(t){…}.
		return !memberAccess(v) && !(len(v) <= 2 && digitsIn(v) == 0) && !strings.ContainsAny(v, "({")
	}
	var digits, letters, other int
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		default:
			other++
		}
	}
	// A word ("Session: restored"), a number, a line and column after a
	// file name ("auth.js:12:5"), a port after a host.
	if digits == 0 || letters+other == 0 || strings.IndexByte(name, '.') >= 0 && v[0] >= '0' && v[0] <= '9' {
		return false
	}
	return !memberAccess(v)
}

// memberAccess reports code such as e.token or this.props.auth: dotted
// names without digits.
func memberAccess(v string) bool {
	if strings.IndexByte(v, '.') < 0 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '.') {
			return false
		}
	}
	return true
}

// placeholder reports values that stand for a secret without being one:
// ********, ${TOKEN}, {{token}}, <token>, null.
func placeholder(v string) bool {
	switch strings.ToLower(v) {
	case "null", "undefined", "true", "false", "none", "nil", "void", "this", "new", "typeof", "function", "await":
		return true
	}
	if strings.HasPrefix(v, "${") || strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "<") || strings.HasPrefix(v, "%") {
		return true
	}
	return len(v) >= 3 && strings.Count(v, v[:1]) == len(v)
}

// xmlElements redacts the text of XML elements with a secret name, and of
// every element inside one: <token>…</token>, <wsse:Password>…,
// <password><value>…</value></password>.
func xmlElements(s string) string {
	var runs [][2]int // an outer element's runs come after its inner ones': sorted below
	eachElement(s, func(name string, vs, ve int) {
		if !strings.Contains(s[vs:ve], Redacted) {
			runs = append(runs, [2]int{vs, ve})
		}
	})
	if len(runs) == 0 {
		return s
	}
	slices.SortFunc(runs, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	last := 0
	for _, r := range runs {
		if r[0] < last {
			continue // the same run, inside two secret elements
		}
		b.WriteString(s[last:r[0]])
		b.WriteString(Redacted)
		last = r[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// eachElement calls fn for each run of text [vs, ve) inside an element of s
// with a secret name, in the order of the text. It looks only at closing
// tags, and from each back to its opening tag.
func eachElement(s string, fn func(name string, vs, ve int)) {
	var names nameCache
	for i := 0; ; {
		k := strings.Index(s[i:], "</")
		if k < 0 {
			return
		}
		c := i + k
		i = c + 2
		gt := strings.IndexByte(s[c:], '>')
		if gt < 0 {
			return
		}
		name := s[c+2 : c+gt]
		local := name[strings.LastIndexByte(name, ':')+1:]
		if local == "" || strings.ContainsAny(name, " \t\n<") || !names.isSecret(local) {
			continue
		}
		open := openingTag(s[:c], name)
		if open < 0 {
			continue
		}
		// The text runs between the opening tag and the closing one.
		for p := open; p < c; {
			gt := strings.IndexByte(s[p:c], '>')
			if gt < 0 {
				break
			}
			vs := p + gt + 1
			ve := vs + strings.IndexByte(s[vs:c+1], '<')
			if strings.TrimSpace(s[vs:ve]) != "" && s[vs-2] != '/' {
				fn(name, vs, ve)
			}
			p = ve
		}
	}
}

// openingTag returns where the last <name> or <name …> of s starts, or -1.
func openingTag(s, name string) int {
	for end := len(s); ; {
		o := strings.LastIndex(s[:end], "<"+name)
		if o < 0 {
			return -1
		}
		if after := o + 1 + len(name); after < len(s) && strings.IndexByte("> \t\n", s[after]) >= 0 {
			return o
		}
		end = o
	}
}

func digitsIn(v string) int {
	n := 0
	for i := 0; i < len(v); i++ {
		if v[i] >= '0' && v[i] <= '9' {
			n++
		}
	}
	return n
}
