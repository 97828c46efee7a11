// Package styles explains why an element looks as it does: for each CSS
// property, the declaration that won the cascade, the ones it beat and why,
// the value inherited from an ancestor, and the computed value, with each
// stylesheet position at its original source when the sheet has a source
// map. The browser reports the declarations that apply to the element and
// its ancestors (Raw); the cascade is ordered here. Plain Go: no HTTP, no
// MCP.
package styles

import (
	"cmp"
	"slices"
)

// Origins of a declaration, as the extension names them.
const (
	OriginAuthor    = "author"
	OriginUserAgent = "user-agent"
	OriginUser      = "user"
	OriginInline    = "inline" // the element's style attribute (author, element-attached)
	OriginAttribute = "attribute"
)

// Why a declaration lost to the winner: the first step of the cascade at
// which the two differ.
const (
	WhyImportant   = "!important"
	WhyOrigin      = "origin"
	WhyInline      = "inline"
	WhyLayer       = "layer"
	WhySpecificity = "specificity"
	WhyOrder       = "order"
)

// Decl is one declaration that applies to the element (Node 0) or to an
// ancestor (Node i: Raw.Ancestors[i-1]), as the extension reports it.
type Decl struct {
	Node      int    `json:"node"`
	Prop      string `json:"p"`
	Value     string `json:"v"`
	Important bool   `json:"imp"`
	Origin    string `json:"o"`
	// Selector is the rule's selectors that matched, as a list.
	Selector string `json:"sel"`
	// Sheet indexes Raw.Sheets; nil for the style attribute.
	Sheet *int `json:"sh"`
	// Line and Col (1-based) are where the browser says the declaration is
	// (Chromium); 0 when it does not (Firefox: then SelectorText and Nth
	// find the rule in the sheet's text).
	Line int `json:"ln"`
	Col  int `json:"col"`
	// SelectorText is the whole rule's selector, and Nth how many rules of
	// the same sheet with the same selector come before it.
	SelectorText string `json:"st"`
	Nth          int    `json:"k"`
	Layer        string `json:"layer"`
	// Order is the declaration's place in the document's order of
	// appearance (a later one wins a tie).
	Order int `json:"n"`
}

// Sheet is one stylesheet of the page.
type Sheet struct {
	URL string `json:"url"`
	// Inline: a <style> element of the page's document (URL is the page's).
	Inline bool `json:"inline"`
}

// Raw is what the extension reports of one element.
type Raw struct {
	URL        string   `json:"url"`
	Via        string   `json:"via"` // "cdp" or "sheets"
	Element    string   `json:"element"`
	Ancestors  []string `json:"ancestors"`
	Sheets     []Sheet  `json:"sheets"`
	Unreadable []string `json:"unreadable"`
	// Layers are the cascade layers' full names in order of first
	// appearance.
	Layers []string `json:"layers"`
	// Props are the properties asked for, or without them the ones the
	// element's author rules and style attribute declare.
	Props    []string          `json:"props"`
	Computed map[string]string `json:"computed"`
	Decls    []Decl            `json:"decls"`
}

// cascade is one declaration with what the cascade compares, computed once.
type cascade struct {
	*Decl
	sel    string
	spec   Specificity
	origin int // origin and importance, in precedence order
	inline bool
	layer  int // in precedence order for the declaration's importance
}

// originRank orders origin and importance (CSS Cascade 5, 6.1).
func originRank(d *Decl) int {
	o := map[string]int{OriginUserAgent: 0, OriginUser: 1}[d.Origin]
	if d.Origin != OriginUserAgent && d.Origin != OriginUser {
		o = 2
	}
	if d.Important {
		return 5 - o // important: author < user < user agent
	}
	return o
}

// layerRanks orders the named layers: a layer's sublayers come before the
// layer's own rules; siblings in order of first appearance.
func layerRanks(names []string) map[string]int {
	first := map[string]int{}
	for i, n := range names {
		if _, ok := first[n]; !ok {
			first[n] = i
		}
	}
	sorted := slices.Clone(names)
	slices.SortStableFunc(sorted, func(a, b string) int { return compareLayers(a, b, first) })
	out := map[string]int{}
	for i, n := range sorted {
		out[n] = i + 1 // unlayered is 0 here and placed by the caller
	}
	return out
}

func compareLayers(a, b string, first map[string]int) int {
	pa, pb := splitLayer(a), splitLayer(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			return cmp.Compare(firstOf(joinLayer(pa[:i+1]), first), firstOf(joinLayer(pb[:i+1]), first))
		}
	}
	return cmp.Compare(len(pb), len(pa)) // a sublayer before its parent's own rules
}

func firstOf(name string, first map[string]int) int {
	if i, ok := first[name]; ok {
		return i
	}
	return len(first)
}

func splitLayer(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func joinLayer(parts []string) string {
	s := ""
	for i, p := range parts {
		if i > 0 {
			s += "."
		}
		s += p
	}
	return s
}

func newCascade(d *Decl, layers map[string]int) cascade {
	c := cascade{Decl: d, origin: originRank(d), inline: d.Origin == OriginInline}
	if d.Origin != OriginInline && d.Origin != OriginAttribute {
		c.sel, c.spec = Most(d.Selector)
	}
	// Unlayered rules beat every layer; with !important, every layer beats them.
	c.layer = len(layers) + 1
	if d.Layer != "" {
		c.layer = layers[d.Layer]
	}
	if d.Important {
		c.layer = -c.layer
	}
	return c
}

// compare orders two declarations of one property by the cascade (the
// higher wins) and says at which step they differ.
func compare(a, b cascade) (int, string) {
	switch {
	case a.Important != b.Important && a.origin != b.origin:
		return cmp.Compare(a.origin, b.origin), WhyImportant
	case a.origin != b.origin:
		return cmp.Compare(a.origin, b.origin), WhyOrigin
	case a.inline != b.inline:
		if a.inline {
			return 1, WhyInline
		}
		return -1, WhyInline
	case a.layer != b.layer:
		return cmp.Compare(a.layer, b.layer), WhyLayer
	case a.spec != b.spec:
		if a.spec.Less(b.spec) {
			return -1, WhySpecificity
		}
		return 1, WhySpecificity
	}
	return cmp.Compare(a.Order, b.Order), WhyOrder
}
