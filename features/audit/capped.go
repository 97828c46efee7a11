package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Caps on what one line holds. Every value an audit line carries may come
// from the AI, the page or a local process (selectors, scripts, client
// names, request paths), so none is written whole past MaxValue: a long one
// keeps its start, its full length and a short hash, which tells two long
// values apart without storing them. MaxLine bounds the whole line, so a
// flood of lines cannot push the others out of the rotated files faster
// than the count of lines written.
const (
	MaxValue = 200
	MaxLine  = 4 << 10
)

// capEvent caps every value of e.
func capEvent(e *Event) {
	for _, p := range []*string{&e.TS, &e.Event, &e.Setting, &e.Reason, &e.Source, &e.Agent, &e.Action,
		&e.Selector, &e.Name, &e.SHA256, &e.Script, &e.Result, &e.Error} {
		*p = Cap(*p)
	}
	e.From, e.To = capAny(e.From), capAny(e.To)
}

// capAny caps a value of any type by its JSON form: a short value stays as
// it is, a long one becomes a capped string.
func capAny(v any) any {
	switch v := v.(type) {
	case nil, bool, int, int64, float64:
		return v
	case string:
		return Cap(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("(%T)", v)
	}
	if len(b) <= MaxValue {
		return v
	}
	return Cap(string(b))
}

// Cap returns s when its JSON form fits in MaxValue bytes; otherwise the
// longest start of it (whole characters) that does, followed by
// "…[N bytes, sha256:H]" with s's length and the first 12 hex digits of
// its SHA-256.
func Cap(s string) string {
	if jsonLen(s, MaxValue+1) <= MaxValue {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	cut := 0
	for n := 0; cut < len(s); {
		r, size := utf8.DecodeRuneInString(s[cut:])
		c := runeCost(r, size)
		if n+c > MaxValue {
			break
		}
		n += c
		cut += size
	}
	return fmt.Sprintf("%s…[%d bytes, sha256:%s]", s[:cut], len(s), hex.EncodeToString(sum[:6]))
}

// jsonLen is an upper bound on the bytes encoding/json writes for s inside
// its quotes, counting no further than limit.
func jsonLen(s string, limit int) int {
	n := 0
	for i := 0; i < len(s) && n < limit; {
		r, size := utf8.DecodeRuneInString(s[i:])
		n += runeCost(r, size)
		i += size
	}
	return n
}

// runeCost is how many bytes encoding/json may write for one character:
// control characters, quotes, backslashes, HTML characters, the line and
// paragraph separators and invalid bytes are escaped.
func runeCost(r rune, size int) int {
	switch {
	case r == utf8.RuneError && size == 1:
		return 6
	case r == '"' || r == '\\':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029:
		return 6
	}
	return size
}
