package streaming

import "strings"

// bare cuts the query and fragment off a URL: they vary per call, and the
// query is where credentials hide.
func bare(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u = u[:i]
	}
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	return u
}

// origin returns scheme://host of an absolute URL, or "".
func origin(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
		return u[:i+3+j]
	}
	return u
}

// short renders a bare URL the way the spec's messages show it: the path
// alone when it is on the page's own origin.
func short(u, page string) string {
	o := origin(u)
	if o == "" || o != origin(page) {
		return u
	}
	if p := u[len(o):]; p != "" {
		return p
	}
	return "/"
}

// normalise reduces an error message to what stays the same between two
// occurrences of one error: numbers and hex ids become '#', whitespace
// runs one space, and only the first maxNormalised bytes count.
func normalise(msg string) string {
	if len(msg) > maxNormalised {
		msg = msg[:maxNormalised]
	}
	var b strings.Builder
	b.Grow(len(msg))
	space := false
	for i := 0; i < len(msg); {
		c := msg[i]
		if !alnum(c) {
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				space = true
			} else {
				if space && b.Len() > 0 {
					b.WriteByte(' ')
				}
				space = false
				b.WriteByte(c)
			}
			i++
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		j := i
		digit, hex := false, true
		for j < len(msg) && alnum(msg[j]) {
			digit = digit || isDigit(msg[j])
			hex = hex && isHex(msg[j])
			j++
		}
		tok := msg[i:j]
		switch {
		case !digit:
			b.WriteString(tok)
		case hex:
			b.WriteByte('#')
		default:
			for k := 0; k < len(tok); k++ {
				if !isDigit(tok[k]) {
					b.WriteByte(tok[k])
				} else if k == 0 || !isDigit(tok[k-1]) {
					b.WriteByte('#')
				}
			}
		}
		i = j
	}
	return b.String()
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
func alnum(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
