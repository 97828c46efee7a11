package redact

import (
	"bytes"
	"encoding/base64"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
)

//go:generate go run ./gen

// Format is a credential recognised by its shape wherever it is written:
// a console message, a stack, a text body. Most are gitleaks' rules
// (formats_gen.go); the others are Gasoline's own (ownFormats).
type Format struct {
	ID    string // gitleaks' rule id, or Gasoline's own
	Rule  string // the security audit's rule: github_token, jwt, bearer, ...
	Regex string
	// Group is the submatch holding the secret (0: the whole match).
	Group int
	// Entropy is the Shannon entropy in bits per character below which a
	// match is a word or a placeholder, not a secret (0: no check).
	Entropy float64
	// Keywords, lowercase: the regex runs only on a text holding one.
	Keywords []string
	// Keep matches the public prefix a redacted secret keeps, so the AI and
	// the human still see which kind of key leaked: "sk_live_[redacted]".
	Keep string
	// check, when set, must accept the secret too.
	check func(string) bool
}

// ownFormats are credentials gitleaks has no free-text rule for: HTTP
// credentials written out ("Authorization: Bearer …"), a private key cut
// short by a size cap (its END line gone) and AWS secret keys in a text
// with a word that names them.
var ownFormats = []Format{
	{ID: "private-key-cut", Rule: "private_key", Regex: `(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[^[][\s\S]{15,}$`,
		Keywords: []string{"-----begin"}, Keep: `(?i)-----BEGIN[ A-Z0-9_-]{0,100}?PRIVATE KEY(?: BLOCK)?-----`},
	{ID: "bearer", Rule: "bearer", Group: 1, Regex: `(?i)\bbearer[ \t]+([A-Za-z0-9._~+/=-]{16,})`, Keywords: []string{"bearer"},
		Keep: `(?i)bearer[ \t]+`, check: credentialLike},
	{ID: "basic-auth", Rule: "bearer", Group: 1, Regex: `(?i)\bbasic[ \t]+([A-Za-z0-9+/]{12,}={0,2})(?:[^A-Za-z0-9+/=]|$)`, Keywords: []string{"basic"},
		Keep: `(?i)basic[ \t]+`, check: basicCredential},
	{ID: "aws-secret-key", Rule: "aws_secret_key", Group: 1, Regex: `(?:^|[^A-Za-z0-9/+=])([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)`,
		Keywords: []string{"aws", "secret"}, check: mixedCase},
	cardFormat,
}

// Formats is every format, in the order they claim text: a Bearer JWT is
// one bearer credential, a PEM block one private key.
var Formats = func() []Format {
	var first, rest []Format
	for _, f := range gitleaksFormats {
		if f.Rule == "private_key" {
			first = append(first, f)
		} else {
			rest = append(rest, f)
		}
	}
	return slices.Concat(first, ownFormats[:3], rest, ownFormats[3:])
}()

// cardBit is the card format's bit in keywordsIn's set.
var cardBit = uint64(1) << slices.IndexFunc(Formats, func(f Format) bool { return f.ID == cardFormat.ID })

// compiled holds the formats' regular expressions, compiled on first use:
// every gasoline process would otherwise pay for them at start.
type compiled struct {
	re, keep, mark *regexp.Regexp
}

var formatRes = sync.OnceValue(func() []compiled {
	out := make([]compiled, len(Formats))
	for i, f := range Formats {
		out[i].re = regexp.MustCompile(f.Regex)
		if f.Keep != "" {
			out[i].keep = regexp.MustCompile(`^(?:` + f.Keep + `)`)
			out[i].mark = regexp.MustCompile(`(?:` + f.Keep + `)` + ellipsis(f) + `$`)
		}
	}
	return out
})

func ellipsis(f Format) string {
	if f.Rule == "jwt" {
		return "…"
	}
	return ""
}

// Match is a secret found in a text: its rule and where it is. Scrubbed
// marks a place Gasoline already redacted ("ghp_[redacted]"), whose
// secret is gone; Start and End then hold the mark.
type Match struct {
	Rule       string
	ID         string // the format's id; for a secret name, the name
	Start, End int
	Scrubbed   bool
	keep       string
}

// Value is the matched text.
func (m Match) Value(s string) string { return s[m.Start:m.End] }

// Redacted is what redaction makes of the match: the format's public
// prefix and Redacted.
func (m Match) Redacted(s string) string {
	if m.Scrubbed {
		return m.Value(s)
	}
	if m.Rule == cardFormat.Rule {
		return cardMark(s, m.Start, m.End)
	}
	return m.keep + Redacted
}

// findFormats appends the credentials of known formats in s to dst, none
// overlapping another: active, from the keyword pass, holds the formats
// that may occur, and only their regexes run.
func findFormats(s string, active uint64, dst []Match) []Match {
	if active&^nameBit == 0 {
		return dst
	}
	res := formatRes()
	n0 := len(dst)
	for i := range Formats {
		if active&(1<<i) == 0 {
			continue
		}
		f := &Formats[i]
		found := res[i].re.FindAllStringSubmatchIndex(s, -1)
		if f.ID == cardFormat.ID {
			found = adjacent(res[i].re, s)
		}
		for _, m := range found {
			st, en := m[2*f.Group], m[2*f.Group+1]
			if st < 0 || en <= st {
				continue
			}
			v := s[st:en]
			if f.ID == cardFormat.ID { // a card followed by another number, grouped otherwise: the card alone
				en = st + cardLen(v)
				v = s[st:en]
			}
			if f.Entropy > 0 && entropy(v) < f.Entropy || f.check != nil && !f.check(v) || overlaps(dst[n0:], st, en) {
				continue
			}
			keep := ""
			if res[i].keep != nil {
				keep = res[i].keep.FindString(v)
				if f.Rule == "jwt" {
					keep += "…"
				}
			}
			dst = append(dst, Match{Rule: f.Rule, ID: f.ID, Start: st, End: en, keep: keep})
		}
	}
	return dst
}

func overlaps(ms []Match, st, en int) bool {
	for _, m := range ms {
		if st < m.End && en > m.Start {
			return true
		}
	}
	return false
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var n [256]int
	for i := 0; i < len(s); i++ {
		n[s[i]]++
	}
	var h float64
	for _, c := range n {
		if c > 0 {
			p := float64(c) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// credentialLike tells a token from a word: it has a digit, both cases, or
// a token's punctuation.
func credentialLike(v string) bool {
	var up, lo bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9', c == '.', c == '_', c == '~', c == '+', c == '/', c == '=', c == '-':
			return true
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			lo = true
		}
	}
	return up && lo
}

// basicCredential: base64 of user:password.
func basicCredential(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	return err == nil && bytes.IndexByte(b, 0x3a) > 0
}

// mixedCase: AWS secrets mix upper and lower case and digits; hex digests
// and words do not.
func mixedCase(v string) bool {
	var up, lo, dg bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		up = up || c >= 'A' && c <= 'Z'
		lo = lo || c >= 'a' && c <= 'z'
		dg = dg || c >= '0' && c <= '9'
	}
	return up && lo && dg
}

// The keyword pass looks at each three bytes of the text, lowercased, in a
// bit set of the keywords' first three bytes; only where one is set are the
// keywords starting there compared.
type keyword struct {
	word    string
	formats uint64
}

var (
	lowerTab = func() (t [256]byte) {
		for i := range t {
			t[i] = lower(byte(i))
		}
		return t
	}()
	trigrams [1 << 15 / 64]uint64
	byTri    = map[uint32][]keyword{}
)

// tri hashes three bytes so that keywordsIn can roll it along a text: a
// byte's bits are shifted out of the hash three bytes later.
func tri(a, b, c byte) uint32 {
	return (uint32(a)<<10 ^ uint32(b)<<5 ^ uint32(c)) & (1<<15 - 1)
}

// nameBit, in keywordsIn's set, says that a secret name may occur: the
// text holds the first three letters of an entry of Rules, which a name
// holds whole unless it splits them into words. The one entry that starts
// with a word of two letters (cc_number) is also looked for by its third.
const nameBit = 1 << 63

func init() {
	if len(Formats) >= 63 {
		panic("redact: more than 62 formats")
	}
	add := func(k string, bit uint64) {
		h := tri(k[0], k[1], k[2])
		trigrams[h/64] |= 1 << (h % 64)
		j := slices.IndexFunc(byTri[h], func(w keyword) bool { return w.word == k })
		if j < 0 {
			byTri[h] = append(byTri[h], keyword{k, bit})
		} else {
			byTri[h][j].formats |= bit
		}
	}
	for i, f := range Formats {
		for _, k := range f.Keywords {
			if len(k) < 3 {
				panic("redact: keyword shorter than 3 bytes: " + k)
			}
			add(k, 1<<i)
		}
	}
	for _, n := range slices.Concat(Rules.Words, Rules.Substrings) {
		if len(n) < 3 {
			panic("redact: secret name shorter than 3 bytes: " + n)
		}
		add(n[:3], nameBit)
		if strings.HasPrefix(n, "cc") {
			add(n[2:5], nameBit)
		}
	}
}

// mayHold reports whether s may hold a secret: a format's keyword or a
// secret name.
func mayHold(s string) bool { return keywordsIn(s) != 0 }

// keywordsIn returns the set of formats whose keywords s holds, in any
// case, and nameBit.
func keywordsIn(s string) uint64 {
	var set uint64
	if len(s) < 3 {
		return 0
	}
	var run cardRun
	run.next(s[0])
	run.next(s[1])
	h := tri(0, lowerTab[s[0]], lowerTab[s[1]])
	for i := 2; i < len(s); i++ {
		if run.next(s[i]) {
			set |= cardBit
		}
		h = (h<<5 ^ uint32(lowerTab[s[i]])) & (1<<15 - 1)
		if trigrams[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, k := range byTri[h] {
			if set&k.formats != k.formats && hasPrefixFold(s[i-2:], k.word) {
				set |= k.formats
			}
		}
	}
	return set
}

// hasPrefixFold reports whether s starts with the lowercase word, ignoring
// ASCII case.
func hasPrefixFold(s, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		if lowerTab[s[i]] != word[i] {
			return false
		}
	}
	return true
}

// markAt reports the format whose redacted mark ends at the [redacted] at
// p ("sk_live_" before it is a Stripe key), and where its prefix starts.
func markAt(s string, p int) (Format, int, bool) {
	from := max(0, p-128)
	w := s[from:p]
	if w == "" {
		return Format{}, 0, false
	}
	res := formatRes()
	for i, f := range Formats {
		if res[i].mark == nil {
			continue
		}
		if m := res[i].mark.FindStringIndex(w); m != nil {
			st := m[0] // the shortest mark: a prefix pattern may span text before it
			for n := res[i].mark.FindStringIndex(w[st+1:]); n != nil; n = res[i].mark.FindStringIndex(w[st+1:]) {
				st += 1 + n[0]
			}
			return f, from + st, true
		}
	}
	return Format{}, 0, false
}

// isMark reports whether v is one redacted secret and nothing else:
// Redacted, alone or after a format's public prefix ("ghp_[redacted]").
func isMark(v string) bool {
	prefix, ok := strings.CutSuffix(v, Redacted)
	if !ok || strings.Contains(prefix, Redacted) {
		return false
	}
	if prefix == "" {
		return true
	}
	f, _, ok := markAt(v, len(prefix))
	if !ok {
		return false
	}
	i := slices.IndexFunc(Formats, func(g Format) bool { return g.ID == f.ID })
	return formatRes()[i].keep.FindString(prefix)+ellipsis(f) == prefix
}

// adjacent is FindAllStringSubmatchIndex for the card format, whose match
// takes the character after a number and before it: each search starts at
// the end of the last number, so [4111…,5555…] finds both.
func adjacent(re *regexp.Regexp, s string) [][]int {
	var out [][]int
	for pos := 0; pos < len(s); {
		m := re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		for j := range m {
			if m[j] >= 0 {
				m[j] += pos
			}
		}
		if st := m[2]; st > 0 && (isAlnum(s[st-1]) || s[st-1] == '_' || s[st-1] == '.') {
			pos = st + 1 // ^ matched where this search started, inside a longer number or word
			continue
		}
		out = append(out, m)
		pos = max(m[3], m[0]+1)
	}
	return out
}
