package testgen

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Confidence of a generated line: how likely it is to hold on a replay of
// the same flow. Every assertion and every fragile locator says its own.
const (
	High   = "high"
	Medium = "medium"
	Low    = "low"
)

// locator is a Playwright locator expression for a recorded target.
// lazyRegexp compiles expr on first use, not when the package loads: every
// gasoline process would otherwise pay for patterns only a generated test uses.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

type locator struct {
	expr string
	conf string // empty when the locator is a stable one
	why  string
}

var (
	testIDSel = lazyRegexp(`^\[data-testid="((?:[^"\\]|\\.)*)"\]$`)
	attrSel   = lazyRegexp(`^([a-z][a-z0-9-]*)?\[(data-test|data-cy|name)="((?:[^"\\]|\\.)*)"\]$`)
	idSel     = lazyRegexp(`^#(?:[A-Za-z_-]|\\.)(?:[\w-]|\\.)*$`)
	// lastTag is the element name of a structural path's final step.
	lastTag = lazyRegexp(`(?:^|[\s>])([a-z][a-z0-9]*)(?::nth-of-type\(\d+\))?$`)
)

// locate picks the most resilient locator the recording allows: a test id,
// then role and accessible name, then an id, a test or name attribute, the
// visible text, and only last the structural CSS path the extension fell
// back to (nth-of-type chains break on any layout change).
func locate(selector, text, actionType string) locator {
	if m := testIDSel().FindStringSubmatch(selector); m != nil {
		return locator{expr: "page.getByTestId(" + jsString(cssUnescape(m[1])) + ")"}
	}
	tag := ""
	if m := lastTag().FindStringSubmatch(selector); m != nil && !idSel().MatchString(selector) {
		tag = m[1]
	}
	if m := attrSel().FindStringSubmatch(selector); m != nil {
		tag = m[1]
	}
	if role := roleOf(tag); role != "" && text != "" && actionType == "click" {
		return locator{expr: fmt.Sprintf("page.getByRole(%s, { name: %s, exact: true })", jsString(role), jsString(text))}
	}
	if idSel().MatchString(selector) || attrSel().MatchString(selector) {
		return locator{expr: "page.locator(" + jsString(selector) + ")"}
	}
	if text != "" && actionType == "click" {
		return locator{expr: "page.getByText(" + jsString(text) + ", { exact: true })", conf: Medium, why: "located by its visible text"}
	}
	if selector == "" {
		return locator{expr: "page.locator('body')", conf: Low, why: "the recording named no target"}
	}
	return locator{expr: "page.locator(" + jsString(selector) + ")", conf: Low, why: "structural CSS path: breaks when the layout changes; add a data-testid"}
}

// clicked locates a click's target. A recording that counted the elements
// sharing its role and name (capture.Action.Matches) gets a locator that is
// unique on the recorded page: role and name when they were unique, else
// scoped to the nearest container that made them unique, else its recorded
// selector (unique on the page when recorded). An older recording: locate.
func clicked(a capture.Action) locator {
	if a.Role == "" || a.Matches == 0 || testIDSel().MatchString(a.Selector) {
		return locate(a.Selector, a.Text, "click")
	}
	byRole := fmt.Sprintf("getByRole(%s, { name: %s, exact: true })", jsString(a.Role), jsString(cmp.Or(a.Name, a.Text)))
	if a.Matches == 1 {
		return locator{expr: "page." + byRole}
	}
	if w := a.Within; w != nil {
		switch {
		case w.Role != "" && w.Name != "":
			return locator{expr: fmt.Sprintf("page.getByRole(%s, { name: %s, exact: true }).%s", jsString(w.Role), jsString(w.Name), byRole)}
		case w.Role != "" && w.Text != "":
			return locator{expr: fmt.Sprintf("page.getByRole(%s).filter({ hasText: %s }).%s", jsString(w.Role), jsString(w.Text), byRole)}
		case w.Selector != "":
			return locator{expr: fmt.Sprintf("page.locator(%s).%s", jsString(w.Selector), byRole)}
		}
	}
	return locate(a.Selector, "", "click")
}

// roleOf maps a clickable element to its ARIA role.
func roleOf(tag string) string {
	switch tag {
	case "button":
		return "button"
	case "a":
		return "link"
	case "summary":
		return "group"
	}
	return ""
}

// cssUnescape undoes CSS.escape for the values test ids usually hold.
func cssUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// jsString quotes s as a single-quoted JavaScript string literal.
func jsString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	escapeJS(&b, s, "'")
	b.WriteByte('\'')
	return b.String()
}

// escapeJS writes s escaped for the inside of a JavaScript literal whose
// own special characters are special: backslashes, control characters,
// the line and paragraph separators (line terminators in JavaScript) and
// invalid UTF-8 are always escaped, so nothing recorded can end the literal
// or the line it is on.
func escapeJS(b *strings.Builder, s string, special string) {
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == utf8.RuneError:
			b.WriteString(`\uFFFD`)
		case r < 0x20 || r == 0x2028 || r == 0x2029 || r == 0x7f:
			fmt.Fprintf(b, `\u%04X`, r)
		case strings.ContainsRune(special, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
}

// shown is recorded text as a comment shows it: as a quoted, escaped
// literal, so nothing of the page's ends the comment and starts code.
func shown(s string) string { return jsString(s) }

// pathRegex is a JavaScript regex literal matching a URL whose path ends
// with path, whatever its origin, query or fragment.
func pathRegex(path string) string {
	var b strings.Builder
	b.WriteByte('/')
	for _, r := range path {
		switch {
		case strings.ContainsRune(`\^$.|?*+()[]{}/`, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x2028 || r == 0x2029 || r == 0x7f || r == utf8.RuneError:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(`(?:[?#]|$)/`)
	return b.String()
}

// ident makes an identifier from words: camelCase when upper is false,
// UPPER_SNAKE when true.
func ident(s string, upper bool) string {
	var words []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf || !(unicode.IsLetter(r) || unicode.IsDigit(r)) }) {
		if w != "" {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return ""
	}
	if upper {
		s = strings.ToUpper(strings.Join(words, "_"))
	} else {
		var b strings.Builder
		for i, w := range words {
			w = strings.ToLower(w)
			if i > 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
		}
		s = b.String()
	}
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsDigit(r) {
		s = "_" + s
	}
	return s
}
