package styles

import "strings"

// Specificity is a selector's (a, b, c): IDs; classes, attributes and
// pseudo-classes; types and pseudo-elements (Selectors Level 4).
type Specificity [3]int

// Less orders specificities.
func (s Specificity) Less(o Specificity) bool {
	for i := range s {
		if s[i] != o[i] {
			return s[i] < o[i]
		}
	}
	return false
}

func (s Specificity) add(o Specificity) Specificity {
	return Specificity{s[0] + o[0], s[1] + o[1], s[2] + o[2]}
}

// legacyElements are pseudo-elements that may be written with one colon.
var legacyElements = map[string]bool{"before": true, "after": true, "first-line": true, "first-letter": true}

// Most is the most specific of a selector list's selectors, and that
// selector: an element matched by a list gets the specificity of the most
// specific selector of it that matched (the page sends only those).
func Most(list string) (string, Specificity) {
	best, bestSel := Specificity{-1, -1, -1}, ""
	for _, sel := range SplitList(list) {
		if sp := Of(sel); best.Less(sp) {
			best, bestSel = sp, sel
		}
	}
	if bestSel == "" {
		return strings.TrimSpace(list), Specificity{}
	}
	return bestSel, best
}

// SplitList splits a selector list at its top-level commas.
func SplitList(list string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(list); i++ {
		c := list[i]
		switch {
		case c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == ',' && depth == 0:
			if s := strings.TrimSpace(list[start:i]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(list[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// Of is one complex selector's specificity. It reads what browsers accept
// and counts what it does not know as a pseudo-class or a type, so a
// selector the page wrote oddly still gets a number, never a failure.
func Of(sel string) Specificity {
	var sp Specificity
	p := &scanner{s: sel}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '#':
			p.i++
			p.ident()
			sp[0]++
		case c == '.':
			p.i++
			p.ident()
			sp[1]++
		case c == '[':
			p.skipBlock('[', ']')
			sp[1]++
		case c == ':' && p.peek(1) == ':':
			p.i += 2
			p.ident()
			if p.peek(0) == '(' {
				p.args()
			}
			sp[2]++
		case c == ':':
			p.i++
			sp = sp.add(p.pseudoClass())
		case c == '*' || c == '&':
			p.i++
		case isIdent(c):
			p.ident()
			if p.peek(0) == '|' && p.peek(1) != '|' { // a namespace prefix, not a type
				p.i++
				continue
			}
			sp[2]++
		case c == '|':
			p.i++
		default: // combinators, blanks, anything else
			p.i++
		}
	}
	return sp
}

func (p *scanner) pseudoClass() Specificity {
	name := strings.ToLower(p.ident())
	if legacyElements[name] {
		return Specificity{0, 0, 1}
	}
	if p.peek(0) != '(' {
		return Specificity{0, 1, 0}
	}
	arg := p.args()
	switch name {
	case "where":
		return Specificity{}
	case "is", "not", "has", "matches", "-webkit-any", "-moz-any":
		_, sp := Most(arg)
		return sp
	case "nth-child", "nth-last-child":
		if i := strings.Index(strings.ToLower(arg), " of "); i >= 0 {
			_, sp := Most(arg[i+4:])
			return sp.add(Specificity{0, 1, 0})
		}
	case "host", "host-context":
		_, sp := Most(arg)
		return sp.add(Specificity{0, 1, 0})
	}
	return Specificity{0, 1, 0}
}

type scanner struct {
	s string
	i int
}

func (p *scanner) peek(n int) byte {
	if p.i+n < len(p.s) {
		return p.s[p.i+n]
	}
	return 0
}

func isIdent(c byte) bool {
	return c == '-' || c == '_' || c == '\\' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func (p *scanner) ident() string {
	start := p.i
	for p.i < len(p.s) && isIdent(p.s[p.i]) {
		if p.s[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	return p.s[start:min(p.i, len(p.s))]
}

// args reads a parenthesised argument and returns what is inside.
func (p *scanner) args() string {
	start := p.i + 1
	p.skipBlock('(', ')')
	return p.s[start:max(start, p.i-1)]
}

// skipBlock moves past a bracketed run, nested brackets and strings included.
func (p *scanner) skipBlock(open, close byte) {
	depth := 0
	var quote byte
	for ; p.i < len(p.s); p.i++ {
		c := p.s[p.i]
		switch {
		case c == '\\':
			p.i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == open:
			depth++
		case c == close:
			depth--
			if depth == 0 {
				p.i++
				return
			}
		}
	}
}
