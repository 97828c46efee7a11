package redact

import "strings"

// Payment card numbers (PANs) are secrets wherever they are written: a
// form field, a JSON body, a console message, a URL. A card is 13 to 19
// digits, written whole or in groups of 3 to 6 separated by one kind of
// space or dash, starting as the card networks' numbers start and as long
// as theirs are (cardPrefix), with a valid Luhn check digit, and alone: not inside a longer
// run of digits, letters or a decimal. Millisecond timestamps start with 1,
// most order ids fail the check digit; what passes all of it is redacted
// whole (no digit of it is kept).

// cardFormat is the Format of card numbers. It has no keyword: the keyword
// pass sets its bit where it sees 13 digits in a run (cardRun).
var cardFormat = Format{ID: "payment-card", Rule: "credit_card", Group: 1,
	Regex: `(?:^|[^0-9A-Za-z_.])([2-6](?:[ -]?[0-9]){12,18})(?:[^0-9A-Za-z_]|$)`, check: func(v string) bool { return cardLen(v) > 0 }}

// cardLen is the length of the card number v starts with: v itself, or v
// up to one of its spaces or dashes ("4111 1111 1111 1111 2024", the
// expression's run taking the year too); 0 for none.
func cardLen(v string) int {
	for end := len(v); end > 0; {
		if cardNumber(v[:end]) {
			return end
		}
		end = max(strings.LastIndexByte(v[:end], ' '), strings.LastIndexByte(v[:end], '-'))
	}
	return 0
}

// cardMin is the fewest digits of a card number.
const cardMin = 13

// cardNumber reports whether v (digits, maybe grouped) is a card number.
func cardNumber(v string) bool {
	var digits [19]byte
	n, group, sep := 0, 0, byte(0)
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == ' ' || c == '-' {
			if sep != 0 && c != sep || group < 3 || group > 6 {
				return false
			}
			sep, group = c, 0
			continue
		}
		if n == len(digits) {
			return false
		}
		digits[n] = c - '0'
		n++
		group++
	}
	if n < cardMin || sep != 0 && group > 6 {
		return false
	}
	if !cardPrefix(digits[:n]) {
		return false
	}
	sum := 0
	for i := range n {
		d := int(digits[n-1-i])
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// cardPrefix: the first digits and the lengths of the card networks'
// numbers (a Visa has 13, 16 or 19 digits, an Amex 15, a Mastercard 16).
func cardPrefix(d []byte) bool {
	n := len(d)
	two := int(d[0])*10 + int(d[1])
	four := two*100 + int(d[2])*10 + int(d[3])
	switch {
	case d[0] == 4: // Visa
		return n == 13 || n == 16 || n == 19
	case two == 34 || two == 37: // American Express
		return n == 15
	case two >= 51 && two <= 55 || four >= 2221 && four <= 2720: // Mastercard
		return n == 16
	case two == 36: // Diners Club
		return n >= 14
	case two == 30 || two == 35 || two == 38 || two == 39: // Diners Club, JCB
		return n >= 16
	case d[0] == 6 || two == 50 || two >= 56 && two <= 58: // Discover, UnionPay, Maestro
		return n >= 16 || two == 50 || two >= 56 && two <= 58 || two == 67 || two == 63
	}
	return false
}

// cardRun is the keyword pass's look for a card: the digits seen in a row,
// one space or dash allowed between two of them.
type cardRun struct{ digits, seps int }

// next takes byte c and reports whether a run long enough for a card ends
// or continues here.
func (r *cardRun) next(c byte) bool {
	switch {
	case c >= '0' && c <= '9':
		r.digits++
		r.seps = 0
		return r.digits >= cardMin
	case (c == ' ' || c == '-') && r.digits > 0 && r.seps == 0:
		r.seps++
	default:
		r.digits, r.seps = 0, 0
	}
	return false
}

// cardMark is the mark of a redacted card at [st, en) of s: quoted where
// the number stood as a JSON value ("card": 4111…, [4111…, …]), so the JSON
// stays valid.
func cardMark(s string, st, en int) string {
	b := st - 1
	for b >= 0 && (s[b] == ' ' || s[b] == '\t') {
		b--
	}
	a := en
	for a < len(s) && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r' || s[a] == '\n') {
		a++
	}
	if b >= 0 && (s[b] == ':' || s[b] == '[' || s[b] == ',') && (a == len(s) || s[a] == ',' || s[a] == '}' || s[a] == ']') {
		return `"` + Redacted + `"`
	}
	return Redacted
}
