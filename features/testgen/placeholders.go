package testgen

import (
	"slices"
	"strings"
)

// redactedParam is a scrubbed URL parameter value, raw or percent-encoded.
var redactedParam = lazyRegexp(`([\w.-]*)=(?:\[redacted\]|%5[Bb]redacted%5[Dd])`)

// urlLiteral quotes a URL; scrubbed query values become placeholders in a
// template literal, so the test never requests a literal "[redacted]".
func (g *gen) urlLiteral(u string) string {
	if !redactedParam().MatchString(u) {
		return jsString(u)
	}
	var b strings.Builder
	b.WriteByte('`')
	last := 0
	for _, m := range redactedParam().FindAllStringSubmatchIndex(u, -1) {
		b.WriteString(templateEscape(u[last:m[3]] + "="))
		name := u[m[2]:m[3]]
		if name == "" {
			name = "param"
		}
		b.WriteString("${encodeURIComponent(" + g.placeholderFor(name) + ")}")
		last = m[1]
	}
	b.WriteString(templateEscape(u[last:]))
	b.WriteByte('`')
	return b.String()
}

// templateEscape escapes s for the inside of a template literal: every $
// is escaped, so none starts a substitution.
func templateEscape(s string) string {
	var b strings.Builder
	escapeJS(&b, s, "`$")
	return b.String()
}

// placeholder declares (once) the environment variable a field's secret
// value is read from, named after the field.
func (g *gen) placeholder(selector string) string {
	name := "FIELD"
	if m := testIDSel().FindStringSubmatch(selector); m != nil {
		name = m[1]
	} else if m := attrSel().FindStringSubmatch(selector); m != nil {
		name = m[3]
	} else if idSel().MatchString(selector) {
		name = cssUnescape(selector[1:])
	}
	return g.placeholderFor(name)
}

// placeholderFor declares (once) the environment variable named after name.
func (g *gen) placeholderFor(name string) string {
	id := "E2E_" + ident(name, true)
	if id == "E2E_" {
		id = "E2E_FIELD"
	}
	if !slices.Contains(g.placeholders, id) {
		g.placeholders = append(g.placeholders, id)
	}
	return id
}
