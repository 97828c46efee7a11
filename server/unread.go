package server

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// maxNameEcho bounds the parameter name a refusal repeats.
const maxNameEcho = 64

// unread refuses a parameter the mode would not read: ignoring it would
// answer a question the AI did not ask (level on errors, a selector on
// page_info) as if it had. A name the tool does not have at all is
// matched against what the mode reads, for the likely slip (tabId,
// levels).
func (t tool) unread(specs []spec, m mode, a args) error {
	reads := make([]string, len(m.reads))
	for i, p := range m.reads {
		reads[i] = p.decl().name
	}
	var keys []string
	for k, v := range a {
		if k != t.selector.name && !empty(v) && !slices.Contains(reads, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	// The name is the caller's: echoed, but no longer than a name can be.
	key := capture.Truncate(keys[0], maxNameEcho)
	what := "reads no other parameter"
	if len(reads) > 0 {
		what = "reads " + strings.Join(reads, ", ")
	}
	mode := fmt.Sprintf("%s %q", t.selector.name, m.name)
	if !slices.ContainsFunc(specs, func(s spec) bool { return s.name == keys[0] }) {
		if near := nearest(key, reads); near != "" {
			return invalid("%s is not a parameter of %s: did you mean %s?", key, t.name, near)
		}
		return invalid("%s is not a parameter of %s; %s %s", key, t.name, mode, what)
	}
	return invalid("%s is not read by %s %s, which %s", key, t.name, mode, what)
}

// empty says whether v asks nothing: null, "", false, 0, [] or {}. Some
// clients fill every optional parameter with such a value (an OpenAI
// model's "" for a string it has no value for); refusing those would make
// the tools unusable from them.
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case float64:
		return x == 0
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// nearest is the name in names closest to key, case and underscores
// aside: at most two edits away, or else holding key whole (url, depth,
// max_depth); "" when none is.
func nearest(key string, names []string) string {
	fold := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "") }
	k := fold(key)
	best, bestD := "", 3
	for _, n := range names {
		if d := edits(k, fold(n)); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" && len(k) >= 3 {
		for _, n := range names {
			if strings.Contains(fold(n), k) {
				return n
			}
		}
	}
	return best
}

// edits is the Levenshtein distance between a and b, in bytes: names
// are ASCII.
func edits(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
