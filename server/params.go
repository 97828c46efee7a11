package server

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// args are a tool call's arguments. addTool checks every declared
// parameter before a mode runs, so modes read them with param.get.
type args map[string]any

// spec is everything declared about one tool parameter. Its schema in
// tools/list and the check a call's value must pass both come from it, so
// the two cannot drift.
type spec struct {
	name     string
	desc     string
	kind     string   // the JSON Schema type; "" accepts any value
	enum     []string // strings: the allowed values
	lo, hi   *int     // integers: inclusive bounds, when bounded
	cursor   bool     // a cursor (uint64): bounded below only
	maxRunes int      // strings: the most characters, when > 0
	required bool
}

// param is a parameter whose value a mode reads as a T: string, int,
// uint64 (a cursor), bool, []string or any.
type param[T any] struct{ spec }

// declared is a param of any type, as a tool lists it.
type declared interface{ decl() spec }

func (p param[T]) decl() spec { return p.spec }

func newParam[T any](name, desc string) param[T] {
	p := param[T]{spec{name: name, desc: desc}}
	switch any(*new(T)).(type) {
	case string:
		p.kind = "string"
	case int:
		p.kind = "integer"
	case uint64:
		p.kind = "integer"
		p.lo, p.cursor = new(0), true
	case bool:
		p.kind = "boolean"
	case []string:
		p.kind = "array"
	}
	return p
}

// oneOf limits a string, or each string of a list, to values.
func (p param[T]) oneOf(values ...string) param[T] { p.enum = values; return p }

// atLeast bounds an integer below.
func (p param[T]) atLeast(lo int) param[T] { p.lo = &lo; return p }

// between bounds an integer, both ends included.
func (p param[T]) between(lo, hi int) param[T] { p.lo, p.hi = &lo, &hi; return p }

// maxLen bounds a string's length in characters.
func (p param[T]) maxLen(n int) param[T] { p.maxRunes = n; return p }

// require makes the parameter mandatory.
func (p param[T]) require() param[T] { p.required = true; return p }

// describe is the same parameter, worded for another tool.
func (p param[T]) describe(desc string) param[T] { p.desc = desc; return p }

// get reads a checked value; the zero value when absent.
func (p param[T]) get(a args) T {
	var out T
	switch o := any(&out).(type) {
	case *string:
		*o, _ = a[p.name].(string)
	case *int:
		f, _ := a[p.name].(float64)
		*o = int(f)
	case *uint64:
		f, _ := a[p.name].(float64)
		*o = uint64(f)
	case *bool:
		*o, _ = a[p.name].(bool)
	case *[]string:
		list, _ := a[p.name].([]any)
		for _, x := range list {
			s, _ := x.(string)
			*o = append(*o, s)
		}
	case *any:
		*o = a[p.name]
	}
	return out
}

// lookup reads a checked value and whether the call gave one, for modes
// where leaving a parameter out means "keep what it was".
func (p param[T]) lookup(a args) (T, bool) {
	v, ok := a[p.name]
	return p.get(a), ok && v != nil
}

// option is the parameter's schema, for mcp.NewTool.
func (s spec) option() mcp.ToolOption {
	var opts []mcp.PropertyOption
	if s.desc != "" {
		opts = append(opts, mcp.Description(s.desc))
	}
	if s.required {
		opts = append(opts, mcp.Required())
	}
	if len(s.enum) > 0 && s.kind != "array" {
		opts = append(opts, mcp.Enum(s.enum...))
	}
	if s.maxRunes > 0 {
		opts = append(opts, mcp.MaxLength(s.maxRunes))
	}
	if s.lo != nil {
		opts = append(opts, mcp.Min(*s.lo))
	}
	if s.hi != nil {
		opts = append(opts, mcp.Max(*s.hi))
	}
	switch s.kind {
	case "string":
		return mcp.WithString(s.name, opts...)
	case "integer":
		return mcp.WithInteger(s.name, opts...)
	case "boolean":
		return mcp.WithBoolean(s.name, opts...)
	case "array":
		items := mcp.WithStringItems()
		if len(s.enum) > 0 {
			items = mcp.WithStringEnumItems(s.enum)
		}
		return mcp.WithArray(s.name, append(opts, items)...)
	}
	return mcp.WithAny(s.name, opts...)
}

// check is the invalid_param a value of this parameter earns, if any. An
// optional string left "" is left out (some clients send "" for every
// string they have no value for): no value of an enum, and no filter.
func (s spec) check(a args) error {
	v, ok := a[s.name]
	if !ok || v == nil || (v == "" && !s.required) {
		if s.required {
			return invalid("%s is required", s.name)
		}
		return nil
	}
	switch s.kind {
	case "string":
		str, ok := v.(string)
		switch {
		case !ok:
			return invalid("%s must be a string", s.name)
		case len(s.enum) > 0 && !slices.Contains(s.enum, str):
			return invalid("%s: %q is not one of %s", s.name, str, strings.Join(s.enum, ", "))
		case s.maxRunes > 0 && utf8.RuneCountInString(str) > s.maxRunes:
			return invalid("%s is longer than %d characters", s.name, s.maxRunes)
		}
	case "integer":
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) {
			return invalid("%s must be an integer", s.name)
		}
		if (s.lo != nil && f < float64(*s.lo)) || (s.hi != nil && f > float64(*s.hi)) {
			return invalid("%s must be %s", s.name, s.bounds())
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return invalid("%s must be true or false", s.name)
		}
	case "array":
		list, ok := v.([]any)
		for _, x := range list {
			str, isStr := x.(string)
			if !isStr {
				ok = false
			} else if len(s.enum) > 0 && !slices.Contains(s.enum, str) {
				return invalid("%s: %q is not one of %s", s.name, str, strings.Join(s.enum, ", "))
			}
		}
		if !ok {
			return invalid("%s must be a list of strings", s.name)
		}
	}
	return nil
}

// bounds says which integers are allowed.
func (s spec) bounds() string {
	switch {
	case s.cursor:
		return "a cursor from an earlier result"
	case s.hi == nil:
		return fmt.Sprintf("at least %d", *s.lo)
	}
	return fmt.Sprintf("between %d and %d", *s.lo, *s.hi)
}

func invalid(format string, v ...any) error {
	return problem.New(problem.InvalidParam, format, v...)
}
