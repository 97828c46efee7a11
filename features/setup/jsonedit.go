package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// The JSON editor works on hujson's syntax tree, which keeps every byte of
// the input (comments, whitespace, trailing commas): only our member is
// added, replaced or cut, so the rest of the file comes out byte for byte.

// parseJSON parses a client's file; strict refuses what plain JSON does.
func parseJSON(src []byte, strict bool) (hujson.Value, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{}\n")
	}
	v, err := hujson.Parse(src)
	if err != nil {
		return v, errors.New(strings.TrimPrefix(err.Error(), "hujson: "))
	}
	if strict && !v.IsStandard() {
		var se *json.SyntaxError
		if err := json.Unmarshal(src, new(any)); errors.As(err, &se) {
			line, col := lineCol(src, int(se.Offset)-1)
			return v, fmt.Errorf("line %d, column %d: %v (this client reads plain JSON: no comments or trailing commas)", line, col, se)
		}
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		line, _ := lineCol(src, v.StartOffset)
		return v, fmt.Errorf("line %d: the top level is not a JSON object", line)
	}
	return v, nil
}

func lineCol(b []byte, n int) (line, col int) {
	n = max(0, min(n, len(b)))
	return 1 + bytes.Count(b[:n], []byte("\n")), n - bytes.LastIndexByte(b[:n], '\n')
}

func memberIndex(obj *hujson.Object, name string) int {
	idx := -1
	for i, m := range obj.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == name {
			idx = i // the last one wins, as in every JSON reader
		}
	}
	return idx
}

// servers finds the client's server table; nil when it is absent.
func servers(root *hujson.Value, key string, src []byte) (*hujson.Object, error) {
	obj := root.Value.(*hujson.Object)
	i := memberIndex(obj, key)
	if i < 0 {
		return nil, nil
	}
	m := obj.Members[i].Value
	s, ok := m.Value.(*hujson.Object)
	if !ok {
		line, _ := lineCol(src, m.StartOffset)
		return nil, fmt.Errorf("line %d: %q is not an object", line, key)
	}
	return s, nil
}

// readJSON returns our entry, or nil when the file has none.
func readJSON(src []byte, strict bool, key string) (*entry, error) {
	v, err := parseJSON(src, strict)
	if err != nil {
		return nil, err
	}
	s, err := servers(&v, key, src)
	if err != nil || s == nil {
		return nil, err
	}
	i := memberIndex(s, ServerName)
	if i < 0 {
		return nil, nil
	}
	val := s.Members[i].Value.Clone()
	val.Standardize()
	var e entry
	if err := json.Unmarshal(val.Pack(), &e); err != nil {
		line, _ := lineCol(src, s.Members[i].Value.StartOffset)
		return nil, fmt.Errorf("line %d: the %q entry is not a server: %v", line, ServerName, err)
	}
	return &e, nil
}

// editJSON returns src with our entry set to e, or removed when e is nil.
func editJSON(src []byte, strict bool, key string, e *entry) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		if e == nil {
			return src, nil
		}
		src = []byte("{}\n")
	}
	v, err := parseJSON(src, strict)
	if err != nil {
		return nil, err
	}
	root := v.Value.(*hujson.Object)
	unit := indentUnit(root)
	s, err := servers(&v, key, src)
	if err != nil {
		return nil, err
	}
	switch {
	case e == nil && s == nil:
		return src, nil
	case e == nil:
		if i := memberIndex(s, ServerName); i >= 0 {
			removeMember(s, i)
		}
		if len(s.Members) == 0 && len(bytes.TrimSpace(s.AfterExtra)) == 0 {
			removeMember(root, memberIndex(root, key)) // the table was ours alone
		}
	case s == nil:
		table := map[string]entry{ServerName: *e}
		setMember(root, key, table, "", unit)
	default:
		setMember(s, ServerName, e, memberIndent(root, "", unit), unit)
	}
	out := v.Pack()
	if err := checkJSON(src, out, key, e); err != nil {
		return nil, err
	}
	return out, nil
}

// indentUnit is the file's indentation step, from its first member.
func indentUnit(root *hujson.Object) string {
	if ind, ok := lastIndent(firstExtra(root)); ok && ind != "" {
		return ind
	}
	return "  "
}

func firstExtra(obj *hujson.Object) hujson.Extra {
	if len(obj.Members) == 0 {
		return nil
	}
	return obj.Members[0].Name.BeforeExtra
}

// lastIndent is the whitespace that starts the last line of x.
func lastIndent(x hujson.Extra) (string, bool) {
	i := bytes.LastIndexByte(x, '\n')
	if i < 0 {
		return "", false
	}
	rest := x[i+1:]
	return string(rest[:len(rest)-len(bytes.TrimLeft(rest, " \t"))]), true
}

// memberIndent is the indentation of obj's members, which sits at parent.
func memberIndent(obj *hujson.Object, parent, unit string) string {
	if ind, ok := lastIndent(firstExtra(obj)); ok {
		return ind
	}
	return parent + unit
}

// setMember sets obj[name] to val, written at obj's indentation.
func setMember(obj *hujson.Object, name string, val any, parent, unit string) {
	ind := memberIndent(obj, parent, unit)
	nv := literalValue(val, ind, unit)
	if i := memberIndex(obj, name); i >= 0 {
		obj.Members[i].Value.Value = nv.Value // keep the comments around it
		return
	}
	nv.BeforeExtra = hujson.Extra(" ")
	// What follows the last member on its own line (a comment) stays on
	// that line, after the comma that now separates it from ours.
	head, tail := obj.AfterExtra, hujson.Extra("\n"+parent)
	if i := bytes.IndexByte(obj.AfterExtra, '\n'); i >= 0 {
		head, tail = obj.AfterExtra[:i], obj.AfterExtra[i:]
	}
	head = bytes.TrimRight(head, " \t\r")
	trailing := len(obj.Members) > 0 && obj.Members[len(obj.Members)-1].Value.AfterExtra != nil
	if trailing {
		nv.AfterExtra = hujson.Extra{}
	}
	name2 := hujson.Value{BeforeExtra: append(append(hujson.Extra{}, head...), "\n"+ind...), Value: hujson.String(name)}
	obj.Members = append(obj.Members, hujson.ObjectMember{Name: name2, Value: nv})
	obj.AfterExtra = tail
}

// removeMember cuts member i, keeping a comment that ended the line before it.
func removeMember(obj *hujson.Object, i int) {
	if i < 0 {
		return
	}
	gone := obj.Members[i]
	var head hujson.Extra
	if j := bytes.IndexByte(gone.Name.BeforeExtra, '\n'); j > 0 {
		head = bytes.TrimSuffix(gone.Name.BeforeExtra[:j], []byte("\r"))
	}
	obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
	switch {
	case i < len(obj.Members):
		next := &obj.Members[i].Name
		next.BeforeExtra = append(append(hujson.Extra{}, head...), next.BeforeExtra...)
	case i > 0:
		if gone.Value.AfterExtra != nil && obj.Members[i-1].Value.AfterExtra == nil {
			obj.Members[i-1].Value.AfterExtra = hujson.Extra{}
		}
		obj.AfterExtra = append(append(hujson.Extra{}, head...), obj.AfterExtra...)
	default:
		obj.AfterExtra = nil
	}
}

// literalValue is val as indented JSON whose lines start at ind.
func literalValue(val any, ind, unit string) hujson.Value {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(ind, unit)
	if err := enc.Encode(val); err != nil {
		panic(err) // our own types always encode
	}
	v, err := hujson.Parse(bytes.TrimSpace(b.Bytes()))
	if err != nil {
		panic(err)
	}
	return v
}

// checkJSON proves the edit changed nothing but our entry: the output,
// read as data, must equal the input with the change applied.
func checkJSON(before, after []byte, key string, e *entry) error {
	want, err := decodeJSON(before)
	if err != nil {
		return err
	}
	got, err := decodeJSON(after)
	if err != nil {
		return fmt.Errorf("internal error: the edited file does not parse: %w", err)
	}
	expect(want, got, key, e)
	if !jsonEqual(want, got) {
		return errors.New("internal error: the edit would change more than the gasoline entry; file left untouched")
	}
	return nil
}

// expect applies our change to want, the data of the file before the
// edit; got is the data after, which tells whether an emptied table went.
func expect(want, got map[string]any, key string, e *entry) {
	table, _ := want[key].(map[string]any)
	if e == nil {
		delete(table, ServerName)
		if _, still := got[key]; table != nil && len(table) == 0 && !still {
			delete(want, key)
		}
		return
	}
	if table == nil {
		table = map[string]any{}
		want[key] = table
	}
	b, _ := json.Marshal(e)
	var ev any
	_ = json.Unmarshal(b, &ev)
	table[ServerName] = ev
}

func decodeJSON(src []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return map[string]any{}, nil
	}
	std, err := hujson.Standardize(append([]byte{}, src...))
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, decodeInto(std, &m)
}

func decodeInto(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a) // map keys come out sorted
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
