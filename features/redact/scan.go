package redact

import "strings"

// SecretName is the Rule of a Match on the value of a secret name (a
// name=value pair, a JSON key, an XML element); its ID is the name.
const SecretName = "secret_name"

// Scan calls fn for each secret in s, by the rules that redact it: the
// credentials of a known format, the values of secret names (read as
// Message reads them), and the marks of secrets already redacted, whose
// Match is Scrubbed. The security audit reports what Scan finds, so what
// is redacted and what is reported are one rule.
func Scan(s string, fn func(Match)) {
	ms := findFormats(s, keywordsIn(s), nil)
	for _, m := range ms {
		fn(m)
	}
	for i := 0; ; {
		k := strings.Index(s[i:], Redacted)
		if k < 0 {
			break
		}
		p := i + k
		i = p + len(Redacted)
		if p == 0 || strings.IndexByte("\"'=:>", s[p-1]) >= 0 {
			continue // a bare mark: a secret name's value
		}
		if f, start, ok := markAt(s, p); ok {
			m := Match{Rule: f.Rule, ID: f.ID, Start: start, End: i, Scrubbed: true}
			ms = append(ms, m)
			fn(m)
		}
	}
	value := func(name string, sep byte, vs, ve int, open string) {
		if overlaps(ms, vs, ve) {
			return
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(s[vs:ve], open), open)
		at := vs + len(open)
		switch {
		case inner == Redacted || open == "" && inner == "[redacted" && ve < len(s) && s[ve] == ']':
			fn(Match{Rule: SecretName, ID: name, Start: at, End: at + len(Redacted), Scrubbed: true})
		case strings.Contains(inner, "[redacted"): // a format's mark, reported above
		case sep == '>' || secretValue(name, sep, s[vs:ve], open):
			fn(Match{Rule: SecretName, ID: name, Start: at, End: at + len(inner)})
		}
	}
	eachPair(s, value)
	eachElement(s, func(name string, vs, ve int) { value(name, '>', vs, ve, "") })
}
