package apicontract

import (
	"bytes"
	"io"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Shape limits, from the spec: nesting compared, and a node budget so an
// endpoint's shape stays a few kilobytes whatever the response.
const (
	MaxDepth  = 3
	maxFields = 50
	maxNodes  = 300
)

// Kind is a JSON type.
type Kind uint8

// JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
)

var kindNames = [...]string{"null", "boolean", "number", "string", "object", "array"}

func (k Kind) String() string { return kindNames[k] }

// Shape is the structure of a JSON value with its values thrown away.
type Shape struct {
	Kind Kind
	// Fields of an object, nil when it lies deeper than MaxDepth (opaque).
	Fields map[string]*Shape
	// Elem is the shape of an array's first element; nil for an empty
	// array or one deeper than MaxDepth.
	Elem *Shape
	// Opaque marks an object or array deeper than MaxDepth: only its
	// kind is known.
	Opaque bool
	// IDKeys marks an object used as a map keyed by ids ({"42": {...}}),
	// whose single field ":id" stands for every key.
	IDKeys bool
}

// MarshalJSON renders a shape as the spec shows it: objects as objects of
// shapes, arrays as a one-element array, scalars by type name.
func (s *Shape) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	s.render(&b)
	return b.Bytes(), nil
}

func (s *Shape) render(b *bytes.Buffer) {
	switch {
	case s.Kind == Object && s.Fields != nil:
		b.WriteByte('{')
		keys := make([]string, 0, len(s.Fields))
		for k := range s.Fields {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := jsontext.AppendQuote(nil, k)
			b.Write(q)
			b.WriteByte(':')
			s.Fields[k].render(b)
		}
		b.WriteByte('}')
	case s.Opaque:
		b.WriteString(`"` + s.Kind.String() + `"`)
	case s.Kind == Array && s.Elem != nil:
		b.WriteByte('[')
		s.Elem.render(b)
		b.WriteByte(']')
	case s.Kind == Array:
		b.WriteString(`[]`)
	default:
		b.WriteString(`"` + s.Kind.String() + `"`)
	}
}

// Extract reads the shape of a JSON document; ok is false when body is not
// complete JSON (truncated by capture, HTML, empty).
func Extract(body string) (s *Shape, ok bool) {
	t := strings.TrimSpace(body)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return nil, false
	}
	dec := jsontext.NewDecoder(strings.NewReader(t), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	nodes := 0
	s, err := readShape(dec, 0, &nodes)
	if err != nil {
		return nil, false
	}
	return s, true
}

func readShape(dec *jsontext.Decoder, depth int, nodes *int) (*Shape, error) {
	*nodes++
	k := dec.PeekKind()
	switch k {
	case '{', '[':
		if depth >= MaxDepth || *nodes > maxNodes {
			kind := Object
			if k == '[' {
				kind = Array
			}
			return &Shape{Kind: kind, Opaque: true}, dec.SkipValue()
		}
	case 'n':
		_, err := dec.ReadToken()
		return &Shape{Kind: Null}, err
	case 't', 'f':
		_, err := dec.ReadToken()
		return &Shape{Kind: Bool}, err
	case '0':
		_, err := dec.ReadToken()
		return &Shape{Kind: Number}, err
	case '"':
		_, err := dec.ReadToken()
		return &Shape{Kind: String}, err
	default:
		_, err := dec.ReadToken()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	if k == '[' {
		s := &Shape{Kind: Array}
		for dec.PeekKind() != ']' {
			if s.Elem != nil {
				if err := dec.SkipValue(); err != nil {
					return nil, err
				}
				continue
			}
			e, err := readShape(dec, depth+1, nodes)
			if err != nil {
				return nil, err
			}
			s.Elem = e
		}
		_, err := dec.ReadToken()
		return s, err
	}
	s := &Shape{Kind: Object, Fields: map[string]*Shape{}}
	idKeys := true
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		key := tok.String()
		idKeys = idKeys && dynamic(key)
		if _, dup := s.Fields[key]; dup || len(s.Fields) >= maxFields || (idKeys && len(s.Fields) > 0) {
			if err := dec.SkipValue(); err != nil {
				return nil, err
			}
			continue
		}
		f, err := readShape(dec, depth+1, nodes)
		if err != nil {
			return nil, err
		}
		s.Fields[key] = f
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	if idKeys && len(s.Fields) > 0 {
		for _, f := range s.Fields {
			s.Fields = map[string]*Shape{":id": f}
		}
		s.IDKeys = true
	}
	return s, nil
}
