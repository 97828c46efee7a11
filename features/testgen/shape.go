package testgen

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// Bounds of a response-shape assertion: deep enough to pin a contract,
// small enough to read.
const (
	shapeDepth = 3
	shapeKeys  = 12
)

var jsIdent = lazyRegexp(`^[A-Za-z_$][\w$]*$`)

// shapeOf renders a JSON body as a Jest/Playwright matcher of its
// structure: expect.objectContaining for objects, expect.any(Type) for
// values, so the assertion checks the contract, not this run's data.
// ok is false when the body is not JSON.
func shapeOf(body string) (string, bool) {
	d := json.NewDecoder(strings.NewReader(body))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return "", false
	}
	var b bytes.Buffer
	writeShape(&b, v, 0)
	return b.String(), true
}

func writeShape(b *bytes.Buffer, v any, depth int) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString("expect.any(Boolean)")
	case json.Number:
		b.WriteString("expect.any(Number)")
	case string:
		b.WriteString("expect.any(String)")
	case []any:
		if len(x) == 0 || depth >= shapeDepth {
			b.WriteString("expect.any(Array)")
			return
		}
		b.WriteString("expect.arrayContaining([")
		writeShape(b, x[0], depth+1)
		b.WriteString("])")
	case map[string]any:
		if depth >= shapeDepth || len(x) == 0 {
			b.WriteString("expect.any(Object)")
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) > shapeKeys {
			keys = keys[:shapeKeys]
		}
		b.WriteString("expect.objectContaining({ ")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			if jsIdent().MatchString(k) {
				b.WriteString(k)
			} else {
				b.WriteString(jsString(k))
			}
			b.WriteString(": ")
			writeShape(b, x[k], depth+1)
		}
		b.WriteString(" })")
	}
}
