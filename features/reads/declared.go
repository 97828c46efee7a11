package reads

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Declared is a read tool's parameters as tools/list declares them, each
// with the values it lists (nil: free text, a number or a boolean). What
// the record shows of a call comes from here only: what the AI wrote
// anywhere else stays out of it.
type Declared map[string][]string

// Value is v when the parameter name declares it as a value, "" when v is
// empty, "?" otherwise.
func (d Declared) Value(name string, v any) string {
	str, _ := v.(string)
	if slices.Contains(d[name], str) {
		return str
	}
	if str == "" {
		return ""
	}
	return "?"
}

// Asked sums up a call's parameters but its selector: each declared name,
// with its value when that is a number, a boolean or one of the declared
// values; a free-text value (a URL filter, a selector) is never shown.
func (d Declared) Asked(selector string, args map[string]any) string {
	var names []string
	for k := range args {
		if _, ok := d[k]; ok && k != selector {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = k
		switch v := args[k].(type) {
		case float64, bool:
			parts[i] += "=" + fmt.Sprint(v)
		case string:
			if slices.Contains(d[k], v) {
				parts[i] += "=" + v
			}
		}
	}
	return strings.Join(parts, " ")
}
