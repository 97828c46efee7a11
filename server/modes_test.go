package server

import (
	"context"
	"reflect"
	"testing"
)

// The selector's description is generated from what each mode declares:
// modes that read and say the same share an entry, a mode that reads and
// says nothing is left out, and the parameters are listed once each.
func TestModesText(t *testing.T) {
	a := newParam[int]("a", "")
	b := newParam[string]("b", "")
	run := func(context.Context, args) (any, error) { return nil, nil }
	tl := tool{name: "t", selector: newParam[string]("mode", ""), modes: []mode{
		{"one", "", []declared{a, b}, run},
		{"two", "does two", []declared{a}, run},
		{"three", "", []declared{a, b}, run},
		{"four", "", nil, run},
		{"five", "does five", nil, run},
	}}
	want := "one,three(a b); two(a): does two; five: does five"
	if got := tl.modesText(); got != want {
		t.Fatalf("modes text:\n got %q\nwant %q", got, want)
	}
	var names []string
	for _, s := range tl.specs() {
		names = append(names, s.name)
	}
	if !reflect.DeepEqual(names, []string{"mode", "a", "b"}) {
		t.Fatalf("specs: %v", names)
	}
}

// A name is one parameter within a tool: two modes that read "name" read
// the same declaration, or the schema would describe only the first.
func TestModesShareOneDeclarationPerName(t *testing.T) {
	s := New(Config{Version: "test"})
	for _, tl := range []tool{s.observeTool(), s.analyzeTool(), s.generateTool(), s.configureTool(), s.interactTool()} {
		first := map[string]spec{}
		for _, m := range tl.modes {
			for _, p := range m.reads {
				d := p.decl()
				if f, ok := first[d.name]; ok && !reflect.DeepEqual(f, d) {
					t.Errorf("%s %s: %s is declared twice: %+v and %+v", tl.name, m.name, d.name, f, d)
				}
				first[d.name] = d
				if d.name == tl.selector.name {
					t.Errorf("%s %s reads its selector as a parameter", tl.name, m.name)
				}
			}
		}
	}
}
