package styles

import (
	"slices"
	"strings"

	"github.com/gasoline-dev/gasoline/features/sourcemap"
)

// Limits of one answer.
const (
	// MaxProps is how many properties an answer explains; the default set
	// is the element's own author declarations, at most DefaultProps.
	MaxProps     = 20
	DefaultProps = 12
	// MaxBeat is how many beaten declarations a property lists.
	MaxBeat = 8
	// MaxDecls bounds the declarations read from one report.
	MaxDecls = 1000
	// MaxAncestors bounds the inheritance chain followed.
	MaxAncestors = 32
	maxText      = 300
)

// Shown is a declaration as the AI reads it. Sheet indexes Answer.Sheets.
type Shown struct {
	// Value is absent for the user agent's longhand of a system font
	// (Chromium's CDP leaves it unparsed), but where it gives the element
	// its value (applied).
	Value       string `json:"value,omitempty"`
	Important   bool   `json:"important,omitempty"`
	Origin      string `json:"origin"`
	Selector    string `json:"selector,omitempty"`
	Specificity []int  `json:"specificity,omitempty"`
	Layer       string `json:"layer,omitempty"`
	Sheet       *int   `json:"sheet,omitempty"`
	Line        int    `json:"line,omitempty"`
	// Why says why it lost to the winner (beaten declarations only).
	Why string `json:"why,omitempty"`
}

// Inherited is the declaration an ancestor passed down; From indexes
// Answer.Ancestors.
type Inherited struct {
	From int `json:"from"`
	Shown
}

// Property is one property's explanation.
type Property struct {
	Computed  string     `json:"computed"`
	Winner    *Shown     `json:"winner,omitempty"`
	Beat      []Shown    `json:"beat,omitempty"`
	BeatMore  int        `json:"beat_more,omitempty"`
	Inherited *Inherited `json:"inherited,omitempty"`
}

// Answer is analyze styles' answer.
type Answer struct {
	Element string `json:"element"`
	Via     string `json:"via"`
	// Sheets are the stylesheets (or original sources) the declarations
	// name, each once; Ancestors the elements inherited from.
	Sheets     []string            `json:"sheets,omitempty"`
	Ancestors  []string            `json:"ancestors,omitempty"`
	Unreadable []string            `json:"unreadable,omitempty"`
	Properties map[string]Property `json:"properties"`
	// PropsMore counts the element's declared properties left out of the
	// default set.
	PropsMore int `json:"props_more,omitempty"`
}

// Position is where a declaration is, in a sheet or in its original source.
type Position struct {
	URL  string
	Line int
	Col  int
}

// Placer puts the declarations shown at their positions: the sheet's own
// (from the browser, or found in the sheet's text) mapped through the
// sheet's source map when it has one. It returns, per declaration, the
// file to name ("" leaves the sheet as the browser named it) and the line.
type Placer func(ds []*Decl, sheets []Sheet) []Position

// inherits names the CSS properties whose value an element takes from its
// parent when nothing sets it (CSS specifications' "Inherited: yes").
var inherits = map[string]bool{}

func init() {
	for _, p := range strings.Fields(`azimuth border-collapse border-spacing caption-side caret-color color cursor
		direction empty-cells font font-family font-feature-settings font-kerning font-language-override
		font-optical-sizing font-palette font-size font-size-adjust font-stretch font-style font-synthesis
		font-variant font-variant-alternates font-variant-caps font-variant-east-asian font-variant-ligatures
		font-variant-numeric font-variant-position font-variation-settings font-weight hyphens image-orientation
		image-rendering letter-spacing line-break line-height list-style list-style-image list-style-position
		list-style-type orphans overflow-wrap paint-order pointer-events quotes ruby-position tab-size
		text-align text-align-last text-decoration-skip-ink text-emphasis text-emphasis-color
		text-emphasis-position text-emphasis-style text-indent text-justify text-rendering text-shadow
		text-size-adjust text-transform text-underline-offset text-underline-position text-wrap
		visibility white-space widows word-break word-spacing word-wrap writing-mode accent-color
		color-scheme fill fill-opacity fill-rule stroke stroke-dasharray stroke-dashoffset stroke-linecap
		stroke-linejoin stroke-miterlimit stroke-opacity stroke-width -webkit-text-fill-color
		-webkit-text-stroke-color -webkit-text-stroke-width`) {
		inherits[p] = true
	}
}

// Inherits says whether a property inherits by default.
func Inherits(prop string) bool { return inherits[prop] || strings.HasPrefix(prop, "--") }

// Build orders each property's declarations by the cascade and shapes the
// answer; place gives the positions of the declarations shown.
func Build(r Raw, asked []string, place Placer) Answer {
	decls := r.Decls[:min(len(r.Decls), MaxDecls)]
	layers := layerRanks(r.Layers)
	byProp := map[string][][]cascade{} // property → node → declarations
	for i := range decls {
		d := &decls[i]
		if d.Node < 0 || d.Node > min(len(r.Ancestors), MaxAncestors) {
			continue
		}
		nodes := byProp[d.Prop]
		for len(nodes) <= d.Node {
			nodes = append(nodes, nil)
		}
		nodes[d.Node] = append(nodes[d.Node], newCascade(d, layers))
		byProp[d.Prop] = nodes
	}
	props, more := asked[:min(len(asked), MaxProps)], 0
	if len(asked) == 0 {
		props, more = ownProps(byProp)
	}
	a := Answer{Element: r.Element, Via: r.Via, Unreadable: r.Unreadable, Properties: map[string]Property{}, PropsMore: more}
	type shownAt struct {
		s *Shown
		d *Decl
	}
	var shown []shownAt
	ancestors := map[int]int{} // node → index in a.Ancestors
	for _, p := range props {
		out := Property{Computed: clip(r.Computed[p])}
		nodes := byProp[p]
		if len(nodes) > 0 && len(nodes[0]) > 0 {
			w, beat := winner(nodes[0])
			out.Winner = applied(show(w, ""), out.Computed)
			shown = append(shown, shownAt{out.Winner, w.Decl})
			for i, b := range beat {
				if i == MaxBeat {
					out.BeatMore = len(beat) - MaxBeat
					break
				}
				_, why := compare(w, b)
				out.Beat = append(out.Beat, *show(b, why))
			}
			for i := range out.Beat {
				shown = append(shown, shownAt{&out.Beat[i], beat[i].Decl})
			}
		}
		explicit := out.Winner != nil && out.Winner.Value == "inherit"
		if explicit || (Inherits(p) && passesDown(out.Winner)) {
			for n := 1; n < len(nodes); n++ {
				if len(nodes[n]) == 0 {
					if !Inherits(p) {
						break // the parent has the initial value
					}
					continue
				}
				w, _ := winner(nodes[n])
				if w.Value == "inherit" || (Inherits(p) && w.Value == "unset") {
					continue // it inherits in turn
				}
				idx, ok := ancestors[n]
				if !ok {
					idx = len(a.Ancestors)
					ancestors[n] = idx
					a.Ancestors = append(a.Ancestors, clip(r.Ancestors[n-1]))
				}
				out.Inherited = &Inherited{From: idx, Shown: *applied(show(w, ""), out.Computed)}
				shown = append(shown, shownAt{&out.Inherited.Shown, w.Decl})
				break
			}
		}
		a.Properties[p] = out
	}
	// Each declaration shown at its (original) position; each file once.
	ds := make([]*Decl, len(shown))
	for i, s := range shown {
		ds[i] = s.d
	}
	var pos []Position
	if place != nil {
		pos = place(ds, r.Sheets)
	}
	files := map[string]int{}
	for i, s := range shown {
		url, line := "", s.d.Line
		if s.d.Sheet != nil && *s.d.Sheet >= 0 && *s.d.Sheet < len(r.Sheets) {
			url = r.Sheets[*s.d.Sheet].URL
		}
		if i < len(pos) && pos[i].URL != "" {
			url, line = pos[i].URL, pos[i].Line
		}
		if url == "" {
			continue
		}
		url = sourcemap.Relative(url, sourcemap.OriginOf(r.URL))
		idx, ok := files[url]
		if !ok {
			idx = len(a.Sheets)
			files[url] = idx
			a.Sheets = append(a.Sheets, url)
		}
		s.s.Sheet, s.s.Line = &idx, line
	}
	return a
}

// applied is the declaration that gives the element its value: one whose
// value the browser did not tell (the user agent's system font) shows the
// computed value, which it set (or, inherited, passed down unchanged).
func applied(s *Shown, computed string) *Shown {
	if s.Value == "" {
		s.Value = computed
	}
	return s
}

// passesDown says whether the element's value for an inherited property
// is its parent's: nothing sets it, or it says so.
func passesDown(w *Shown) bool {
	return w == nil || w.Value == "inherit" || w.Value == "unset"
}

// winner is the declaration the cascade picks, and the others, highest first.
func winner(cs []cascade) (cascade, []cascade) {
	sorted := slices.Clone(cs)
	slices.SortStableFunc(sorted, func(a, b cascade) int {
		c, _ := compare(b, a)
		return c
	})
	return sorted[0], sorted[1:]
}

func show(c cascade, why string) *Shown {
	s := &Shown{Value: clip(c.Value), Important: c.Important, Origin: c.Origin, Layer: c.Layer, Why: why}
	if s.Origin == "" {
		s.Origin = OriginAuthor
	}
	if !c.inline && c.Origin != OriginAttribute {
		s.Selector, s.Specificity = clip(c.sel), []int{c.spec[0], c.spec[1], c.spec[2]}
	}
	return s
}

// ownProps is the properties the element's author rules and style
// attribute declare, by name, at most DefaultProps, and how many more.
func ownProps(byProp map[string][][]cascade) ([]string, int) {
	var own []string
	for p, nodes := range byProp {
		if len(nodes) > 0 && slices.ContainsFunc(nodes[0], func(c cascade) bool {
			return c.Origin != OriginUserAgent && c.Origin != OriginUser
		}) {
			own = append(own, p)
		}
	}
	slices.Sort(own)
	if len(own) > DefaultProps {
		return own[:DefaultProps], len(own) - DefaultProps
	}
	return own, 0
}

func clip(s string) string {
	if len(s) > maxText {
		return s[:maxText] + "…"
	}
	return s
}
