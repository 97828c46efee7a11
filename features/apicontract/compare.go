package apicontract

import (
	"slices"
	"strings"
)

// diff is one difference between the established shape and a response.
type diff struct {
	kind     string // missing, new, type, null, elem
	path     string // "price", "user.name", "items[].id"; "" is the root
	inArray  bool   // the path goes through an array element
	expected Kind
	actual   Kind
}

// compare lists how actual differs from expected. A null in the expected
// shape matches anything: a field seen only as null has no known type yet.
// Opaque nodes (deeper than MaxDepth) compare by kind only.
func compare(expected, actual *Shape, path string, inArray bool, out *[]diff) {
	switch {
	case expected.Kind == Null:
		return
	case actual.Kind == Null:
		k := "null"
		if expected.Kind == Object || expected.Kind == Array {
			k = "type" // object → null is a type change in the spec's table
		}
		*out = append(*out, diff{kind: k, path: path, inArray: inArray, expected: expected.Kind, actual: Null})
		return
	case expected.Kind != actual.Kind:
		k := "type"
		if strings.HasSuffix(path, "[]") {
			k = "elem"
		}
		*out = append(*out, diff{kind: k, path: path, inArray: inArray, expected: expected.Kind, actual: actual.Kind})
		return
	case expected.Kind == Array:
		if expected.Elem != nil && actual.Elem != nil {
			compare(expected.Elem, actual.Elem, path+"[]", true, out)
		}
		return
	case expected.Kind != Object || expected.Fields == nil || actual.Fields == nil:
		return
	}
	for _, k := range sortedKeys(expected.Fields) {
		a, ok := actual.Fields[k]
		if !ok {
			*out = append(*out, diff{kind: "missing", path: join(path, k), inArray: inArray})
			continue
		}
		compare(expected.Fields[k], a, join(path, k), inArray, out)
	}
	for _, k := range sortedKeys(actual.Fields) {
		if _, ok := expected.Fields[k]; !ok {
			*out = append(*out, diff{kind: "new", path: join(path, k), inArray: inArray})
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func sortedKeys(m map[string]*Shape) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// refine replaces nulls in the established shape by the types a later
// response shows, so a field first seen as null gets checked from then on.
// actual is the shape of one response, owned by the caller and discarded
// after, so its nodes are adopted as they are.
func refine(expected, actual *Shape) {
	switch {
	case expected.Kind == Null && actual.Kind != Null:
		*expected = *actual
	case expected.Kind == Array && actual.Kind == Array:
		if expected.Elem == nil {
			expected.Elem = actual.Elem
		} else if actual.Elem != nil {
			refine(expected.Elem, actual.Elem)
		}
	case expected.Kind == Object && actual.Kind == Object && expected.Fields != nil && actual.Fields != nil:
		for k, e := range expected.Fields {
			if a, ok := actual.Fields[k]; ok {
				refine(e, a)
			}
		}
	}
}
