package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// go-toml does not keep comments when it re-encodes a document, so the
// TOML editor never re-encodes one: its parser locates our table's bytes,
// which are appended, replaced or cut as text, and everything else in the
// file (comments, other servers, formatting) is left as it was.

func decodeTOML(src []byte) (map[string]any, error) {
	doc := map[string]any{}
	if err := toml.Unmarshal(src, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("line %d, column %d: %v", row, col, de)
		}
		return nil, err
	}
	return doc, nil
}

// readTOML returns our entry, or nil when the file has none.
func readTOML(src []byte, key string) (*entry, error) {
	doc, err := decodeTOML(src)
	if err != nil {
		return nil, err
	}
	table, _ := doc[key].(map[string]any)
	raw, ok := table[ServerName]
	if !ok {
		return nil, nil
	}
	b, _ := json.Marshal(raw)
	var e entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("the [%s.%s] table is not a server: %v", key, ServerName, err)
	}
	return &e, nil
}

// span is a byte range [start, end) of src.
type span struct{ start, end int }

// ourTables finds the bytes of [key.gasoline] and its sub-tables: from the
// header line to the end of the last key/value line under it. Comments
// after that belong to whatever follows.
func ourTables(src []byte, key string) ([]span, error) {
	var (
		p     = unstable.Parser{}
		out   []span
		inOur bool
	)
	p.Reset(src)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			var path []string
			first := -1
			for it := e.Key(); it.Next(); {
				if first < 0 {
					first = int(it.Node().Raw.Offset)
				}
				path = append(path, string(it.Node().Data))
			}
			inOur = len(path) >= 2 && path[0] == key && path[1] == ServerName
			if inOur {
				start := bytes.LastIndexByte(src[:first], '\n') + 1
				out = append(out, span{start, lineEnd(src, first)})
			}
		case unstable.KeyValue:
			if inOur {
				out[len(out)-1].end = lineEnd(src, int(e.Raw.Offset+e.Raw.Length))
			}
		}
	}
	return out, p.Error()
}

// lineEnd is the offset just past the newline that ends the line at n.
func lineEnd(src []byte, n int) int {
	if i := bytes.IndexByte(src[n:], '\n'); i >= 0 {
		return n + i + 1
	}
	return len(src)
}

// editTOML returns src with our entry set to e, or removed when e is nil.
func editTOML(src []byte, key string, e *entry) ([]byte, error) {
	doc, err := decodeTOML(src)
	if err != nil {
		return nil, err
	}
	spans, err := ourTables(src, key)
	if err != nil {
		return nil, err
	}
	table, _ := doc[key].(map[string]any)
	if _, ok := table[ServerName]; ok && len(spans) == 0 {
		return nil, fmt.Errorf("%s.%s is written inline, not as a [%s.%s] table; edit it by hand", key, ServerName, key, ServerName)
	}
	out := slices.Clone(src)
	// Cut from the last span back, so earlier offsets stay right.
	for i := len(spans) - 1; i >= 0; i-- {
		if i == 0 && e != nil {
			out = slices.Replace(out, spans[0].start, spans[0].end, tomlBlock(key, e)...)
			break
		}
		start, end := spans[i].start, spans[i].end
		// Take the blank line that set it apart, too.
		switch {
		case bytes.HasSuffix(out[:start], []byte("\r\n\r\n")):
			start -= 2
		case bytes.HasSuffix(out[:start], []byte("\n\n")):
			start--
		case start == 0 && bytes.HasPrefix(out[end:], []byte("\r\n")):
			end += 2
		case start == 0 && bytes.HasPrefix(out[end:], []byte("\n")):
			end++
		}
		out = slices.Delete(out, start, end)
	}
	if e != nil && len(spans) == 0 {
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, tomlBlock(key, e)...)
	}
	if err := checkTOML(doc, out, key, e); err != nil {
		return nil, err
	}
	return out, nil
}

func tomlBlock(key string, e *entry) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "[%s.%s]\n", key, ServerName)
	if err := toml.NewEncoder(&b).Encode(e); err != nil {
		panic(err) // our own type always encodes
	}
	return b.Bytes()
}

// checkTOML proves the edit changed nothing but our entry.
func checkTOML(want map[string]any, after []byte, key string, e *entry) error {
	got, err := decodeTOML(after)
	if err != nil {
		// Appending a table to a valid file only fails when the file
		// already defines the key as an inline value.
		return fmt.Errorf("%s is written inline, so a [%s.%s] table cannot be added; add it by hand", key, key, ServerName)
	}
	expect(want, got, key, e)
	if !jsonEqual(want, got) {
		return errors.New("internal error: the edit would change more than the gasoline entry; file left untouched")
	}
	return nil
}
