package styles

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/sourcemap"
)

func TestSpecificity(t *testing.T) {
	for sel, want := range map[string]Specificity{
		"#buy":                       {1, 0, 0},
		".btn":                       {0, 1, 0},
		"button.btn.primary":         {0, 2, 1},
		"ul > li + li a:hover":       {0, 1, 4},
		"a[href^='x,y']":             {0, 1, 1},
		"p::before":                  {0, 0, 2},
		"p:before":                   {0, 0, 2},
		":where(#a, .b) p":           {0, 0, 1},
		":is(#a, .b) p":              {1, 0, 1},
		":not(.a, #b)":               {1, 0, 0},
		":nth-child(2n of .x, #y)":   {1, 1, 0},
		"*":                          {0, 0, 0},
		"svg|rect":                   {0, 0, 1},
		".a\\:b":                     {0, 1, 0},
		"div#main .card:first-child": {1, 2, 1},
	} {
		if got := Of(sel); got != want {
			t.Errorf("Of(%q) = %v, want %v", sel, got, want)
		}
	}
	if sel, sp := Most(".btn, #buy, a[x='1,2']"); sel != "#buy" || sp != (Specificity{1, 0, 0}) {
		t.Errorf("Most = %q %v", sel, sp)
	}
}

func ip(i int) *int { return &i }

// The fixture's button: #buy over .btn, the UA's button rule, an inline
// style, !important, layers and an inherited font.
func fixture() Raw {
	return Raw{
		URL: "http://127.0.0.1:9/index.html", Via: "cdp", Element: "button#buy.btn",
		Ancestors: []string{"div.card", "body"},
		Sheets:    []Sheet{{URL: "http://127.0.0.1:9/site.css"}, {URL: "http://127.0.0.1:9/index.html", Inline: true}},
		Layers:    []string{"base", "base.reset", "theme"},
		Computed:  map[string]string{"color": "rgb(204, 0, 0)", "font-family": "Georgia", "padding-top": "4px", "margin-top": "0px"},
		Decls: []Decl{
			{Node: 0, Prop: "color", Value: "buttontext", Origin: OriginUserAgent, Selector: "button", Order: 0},
			{Node: 0, Prop: "color", Value: "blue", Origin: OriginAuthor, Selector: ".btn", Sheet: ip(0), Line: 2, Order: 1},
			{Node: 0, Prop: "color", Value: "#c00", Origin: OriginAuthor, Selector: "#buy", Sheet: ip(0), Line: 3, Order: 2},
			{Node: 0, Prop: "color", Value: "green", Origin: OriginAuthor, Selector: "button.btn", Sheet: ip(0), Line: 9, Order: 5},
			{Node: 0, Prop: "padding-top", Value: "1px", Origin: OriginAuthor, Selector: "#buy", Layer: "theme", Sheet: ip(0), Line: 20, Order: 6},
			{Node: 0, Prop: "padding-top", Value: "4px", Origin: OriginAuthor, Selector: ".btn", Sheet: ip(0), Line: 21, Order: 3},
			{Node: 0, Prop: "margin-top", Value: "2px", Important: true, Origin: OriginAuthor, Selector: ".btn", Layer: "base", Sheet: ip(0), Order: 7},
			{Node: 0, Prop: "margin-top", Value: "3px", Important: true, Origin: OriginAuthor, Selector: "#buy", Layer: "theme", Sheet: ip(0), Order: 8},
			{Node: 0, Prop: "margin-top", Value: "0", Origin: OriginInline},
			{Node: 1, Prop: "font-family", Value: "Georgia", Origin: OriginAuthor, Selector: ".card", Sheet: ip(1), Line: 12, Order: 4},
			{Node: 2, Prop: "font-family", Value: "serif", Origin: OriginAuthor, Selector: "body", Sheet: ip(0), Line: 1, Order: 0},
			{Node: 1, Prop: "padding-top", Value: "9px", Origin: OriginAuthor, Selector: ".card", Sheet: ip(0), Line: 30, Order: 9},
		},
	}
}

func TestCascade(t *testing.T) {
	a := Build(fixture(), []string{"color", "padding-top", "margin-top", "font-family"}, nil)
	c := a.Properties["color"]
	if c.Computed != "rgb(204, 0, 0)" || c.Winner == nil || c.Winner.Selector != "#buy" || c.Winner.Line != 3 ||
		a.Sheets[*c.Winner.Sheet] != "/site.css" || len(c.Winner.Specificity) != 3 || c.Winner.Specificity[0] != 1 {
		t.Fatalf("color: %s", js(c))
	}
	want := []string{"button.btn specificity", ".btn specificity", "button origin"}
	for i, b := range c.Beat {
		if got := b.Selector + " " + b.Why; i >= len(want) || got != want[i] {
			t.Errorf("beat %d: %s, want %v", i, got, want)
		}
	}
	// Unlayered beats a layer, whatever the specificity.
	if p := a.Properties["padding-top"]; p.Winner.Selector != ".btn" || p.Beat[0].Selector != "#buy" || p.Beat[0].Why != WhyLayer || p.Inherited != nil {
		t.Errorf("padding-top: %s", js(p))
	}
	// !important: the earlier layer wins; the inline style loses for want of !important.
	if m := a.Properties["margin-top"]; m.Winner.Selector != ".btn" || m.Winner.Layer != "base" || !m.Winner.Important ||
		m.Beat[0].Why != WhyLayer || m.Beat[1].Origin != OriginInline || m.Beat[1].Why != WhyImportant || m.Beat[1].Selector != "" {
		t.Errorf("margin-top: %s", js(m))
	}
	f := a.Properties["font-family"]
	if f.Winner != nil || f.Inherited == nil || a.Ancestors[f.Inherited.From] != "div.card" || f.Inherited.Selector != ".card" ||
		a.Sheets[*f.Inherited.Sheet] != "/index.html" {
		t.Errorf("font-family: %s %v", js(f), a.Ancestors)
	}
	if len(a.Ancestors) != 1 || len(a.Sheets) != 2 {
		t.Errorf("each ancestor and sheet once, only those named: %v %v", a.Ancestors, a.Sheets)
	}
	if strings.Contains(js(a), "null") {
		t.Errorf("a null in %s", js(a))
	}
}

func TestInlineAndOrder(t *testing.T) {
	r := Raw{Element: "p", Decls: []Decl{
		{Prop: "color", Value: "red", Selector: "#x", Order: 1},
		{Prop: "color", Value: "blue", Origin: OriginInline},
		{Prop: "top", Value: "1px", Selector: ".a", Order: 1},
		{Prop: "top", Value: "2px", Selector: ".b", Order: 2},
	}}
	a := Build(r, nil, nil)
	if c := a.Properties["color"]; c.Winner.Origin != OriginInline || c.Beat[0].Why != WhyInline {
		t.Errorf("inline: %s", js(c))
	}
	if p := a.Properties["top"]; p.Winner.Value != "2px" || p.Beat[0].Why != WhyOrder {
		t.Errorf("order: %s", js(p))
	}
}

func TestInheritance(t *testing.T) {
	r := Raw{Element: "span", Ancestors: []string{"em", "p.lead"}, Decls: []Decl{
		{Node: 0, Prop: "color", Value: "inherit", Selector: "span"},
		{Node: 1, Prop: "color", Value: "unset", Selector: "em"},
		{Node: 2, Prop: "color", Value: "navy", Selector: ".lead"},
		{Node: 2, Prop: "margin-top", Value: "4px", Selector: ".lead"},
	}}
	a := Build(r, []string{"color", "margin-top"}, nil)
	if c := a.Properties["color"]; c.Winner.Value != "inherit" || c.Inherited == nil || a.Ancestors[c.Inherited.From] != "p.lead" {
		t.Errorf("color: %s %v", js(c), a.Ancestors)
	}
	if m := a.Properties["margin-top"]; m.Inherited != nil {
		t.Errorf("margin does not inherit: %s", js(m))
	}
}

// A button's font-size from the user agent's system font: declared there
// with no value the browser tells, it wins over inheritance at the
// computed value; beaten, it shows no value.
func TestUserAgentSystemFont(t *testing.T) {
	ua := Decl{Prop: "font-size", Origin: OriginUserAgent, Selector: "button"}
	r := Raw{Element: "button", Ancestors: []string{"div.card"}, Computed: map[string]string{"font-size": "13.3333px"}, Decls: []Decl{
		ua, {Node: 1, Prop: "font-size", Value: "18px", Selector: ".card"},
	}}
	p := Build(r, []string{"font-size"}, nil).Properties["font-size"]
	if p.Winner == nil || p.Winner.Origin != OriginUserAgent || p.Winner.Value != "13.3333px" || p.Inherited != nil {
		t.Errorf("the user agent's: %s", js(p))
	}
	// A span in the button inherits the button's value, which is its own computed one.
	child := Raw{Element: "span", Ancestors: []string{"button", "div.card"}, Computed: map[string]string{"font-size": "13.3333px"}, Decls: []Decl{
		{Node: 1, Prop: "font-size", Origin: OriginUserAgent, Selector: "button"}, {Node: 2, Prop: "font-size", Value: "18px", Selector: ".card"},
	}}
	if p := Build(child, []string{"font-size"}, nil).Properties["font-size"]; p.Inherited == nil || p.Inherited.Origin != OriginUserAgent || p.Inherited.Value != "13.3333px" {
		t.Errorf("inherited from the button: %s", js(p))
	}
	r.Computed["font-size"] = "16px"
	r.Decls = append(r.Decls, Decl{Prop: "font-size", Value: "16px", Selector: ".btn", Order: 1})
	p = Build(r, []string{"font-size"}, nil).Properties["font-size"]
	if p.Winner.Selector != ".btn" || len(p.Beat) != 1 || p.Beat[0].Origin != OriginUserAgent || js(p.Beat[0]) != `{"origin":"user-agent","selector":"button","specificity":[0,0,1],"why":"origin"}` {
		t.Errorf("the author's over it: %s", js(p))
	}
}

func TestDefaultProps(t *testing.T) {
	r := Raw{Element: "b"}
	for _, p := range []string{"z-index", "color", "top", "left", "right", "bottom", "width", "height", "margin", "padding", "border", "outline", "opacity", "cursor"} {
		r.Decls = append(r.Decls, Decl{Prop: p, Value: "1", Selector: "b"})
	}
	r.Decls = append(r.Decls, Decl{Prop: "display", Value: "inline", Origin: OriginUserAgent, Selector: "b"},
		Decl{Node: 1, Prop: "font-size", Value: "2em", Selector: "div"})
	r.Ancestors = []string{"div"}
	a := Build(r, nil, nil)
	if len(a.Properties) != DefaultProps || a.PropsMore != 2 {
		t.Fatalf("%d properties, %d more", len(a.Properties), a.PropsMore)
	}
	for _, p := range []string{"display", "font-size", "z-index"} {
		if _, ok := a.Properties[p]; ok {
			t.Errorf("%s in the default set", p)
		}
	}
}

const sheet = `/* header */
.btn { color: blue; }
#buy { color: #c00; }
@media (min-width: 1px) {
  .card .title {
    padding: 0;
    color: red;
  }
}
#buy {
  color: green
}
`

func TestLocate(t *testing.T) {
	for _, c := range []struct {
		sel       string
		nth       int
		prop      string
		line, col int
	}{
		{"#buy", 0, "color", 3, 8},
		{".btn", 0, "margin", 2, 1},
		{".card .title", 0, "color", 7, 5},
		{".card  .title", 0, "padding", 6, 5},
		{"#buy", 1, "color", 11, 3},
	} {
		l, col, ok := Locate(sheet, c.sel, c.nth, c.prop)
		if !ok || l != c.line || col != c.col {
			t.Errorf("Locate(%q, %d, %s) = %d:%d %v, want %d:%d", c.sel, c.nth, c.prop, l, col, ok, c.line, c.col)
		}
	}
	if _, _, ok := Locate(sheet, "#nope", 0, "color"); ok {
		t.Error("found a rule that is not there")
	}
	if _, _, ok := Locate(sheet, "#buy", 2, "color"); ok {
		t.Error("found a third #buy")
	}
}

type fakeMaps struct{ texts map[string]string }

func (f fakeMaps) Text(_ context.Context, sheet, _ string) ([]byte, error) {
	if t, ok := f.texts[sheet]; ok {
		return []byte(t), nil
	}
	return nil, errors.New("not allowed")
}

// Resolve maps theme.css line 2 to theme.scss line 5.
func (f fakeMaps) Resolve(_ context.Context, st []sourcemap.Stack) [][]sourcemap.Resolved {
	out := make([]sourcemap.Resolved, len(st[0].Frames))
	for i, fr := range st[0].Frames {
		out[i] = sourcemap.Resolved{Frame: fr}
		if strings.HasSuffix(fr.URL, "/theme.css") && fr.Line == 2 {
			out[i].Mapped, out[i].Source, out[i].OLine, out[i].OCol = true, "http://127.0.0.1:9/scss/theme.scss", 5, 5
		}
	}
	return [][]sourcemap.Resolved{out}
}

func TestPlace(t *testing.T) {
	r := Raw{URL: "http://127.0.0.1:9/", Element: "h2.title", Via: "sheets",
		Sheets: []Sheet{{URL: "http://127.0.0.1:9/site.css"}, {URL: "http://127.0.0.1:9/theme.css"}, {URL: "http://127.0.0.1:9/", Inline: true}},
		Decls: []Decl{
			{Prop: "color", Value: "#0a7", Selector: ".card .title", SelectorText: ".card .title", Sheet: ip(1), Order: 3},
			{Prop: "color", Value: "#c00", Selector: "#buy", SelectorText: "#buy", Sheet: ip(0), Order: 1},
			{Prop: "color", Value: "red", Selector: "h2", SelectorText: "h2", Sheet: ip(2), Order: 0},
		}}
	m := fakeMaps{texts: map[string]string{
		"http://127.0.0.1:9/site.css":  sheet,
		"http://127.0.0.1:9/theme.css": ".card .title {\n  color: #0a7;\n}\n",
	}}
	a := Build(r, []string{"color"}, Place(context.Background(), r.URL, m))
	c := a.Properties["color"]
	if a.Sheets[*c.Winner.Sheet] != "/site.css" || c.Winner.Line != 3 {
		t.Errorf("#buy at %s: %s", js(a.Sheets), js(c))
	}
	if b := c.Beat[0]; a.Sheets[*b.Sheet] != "/scss/theme.scss" || b.Line != 5 {
		t.Errorf(".card .title at %s: %s", js(a.Sheets), js(b))
	}
	if b := c.Beat[1]; a.Sheets[*b.Sheet] != "/" || b.Line != 0 {
		t.Errorf("an inline <style> is named, without a line: %s", js(b))
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
