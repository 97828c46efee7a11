package security

import "strings"

// The patterns below have no literal to search for, and Go's regexp runs
// them slowly over long texts. A cheap byte scan finds the few places they
// could match; the spec's regex then runs on a small window around each,
// with a character of context either side so that \b sees the real
// neighbours.

// emails calls found with the span of each email address in s and
// returns how many there were.
func emails(s string, b *budget, found func(start, end int)) int {
	n := 0
	for i := 0; i < len(s) && *b > 0; {
		k := strings.IndexByte(s[i:], '@')
		if k < 0 {
			break
		}
		at := i + k
		l := at
		for l > 0 && localChar(s[l-1]) {
			l--
		}
		r := at + 1
		for r < len(s) && domainChar(s[r]) {
			r++
		}
		if end := emailEnd(s[at+1 : r]); l < at && end > 0 {
			*b--
			n++
			if found != nil {
				found(l, at+1+end)
			}
		}
		i = max(r, at+1)
	}
	return n
}

// emailEnd is where the spec's email pattern ends in a domain candidate
// (a run of letters, digits, dots and dashes), or 0: the last dot that has
// at least one character before it and two letters after it, plus the
// letters after it.
func emailEnd(d string) int {
	for p := len(d) - 2; p >= 1; p-- {
		if d[p] != '.' {
			continue
		}
		n := 0
		for p+1+n < len(d) && (d[p+1+n]|0x20 >= 'a' && d[p+1+n]|0x20 <= 'z') {
			n++
		}
		if n >= 2 {
			return p + 1 + n
		}
	}
	return 0
}

func localChar(c byte) bool {
	return domainChar(c) || c == '_' || c == '%' || c == '+'
}

func domainChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-'
}

// numberish is what SSNs, card and phone numbers are made of.
var numberish = func() (t [256]bool) {
	for _, c := range []byte(" \t\n\r\f\v-()+0123456789") {
		t[c] = true
	}
	return t
}()

// numberRuns returns windows of s (with one character of context each
// side) around runs of number characters holding at least 9 digits, the
// fewest any of the SSN, card and phone patterns needs, and their offsets.
func numberRuns(s string) (windows []string, offsets []int) {
	for i := 0; i < len(s); {
		if !numberish[s[i]] {
			i++
			continue
		}
		j, digits := i, 0
		for ; j < len(s) && numberish[s[j]]; j++ {
			if s[j] >= '0' && s[j] <= '9' {
				digits++
			}
		}
		if digits >= 9 {
			l, r := max(0, i-1), min(len(s), j+1)
			windows = append(windows, s[l:r])
			offsets = append(offsets, l)
		}
		i = j
	}
	return windows, offsets
}
