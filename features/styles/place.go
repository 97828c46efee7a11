package styles

import (
	"context"

	"github.com/gasoline-dev/gasoline/features/sourcemap"
)

// MaxSheetsRead bounds the stylesheets one answer reads for positions.
const MaxSheetsRead = 8

// Maps is what placing reads: the sourcemap package's Resolver, by its
// fetch rules (allowed origins only, same-origin maps, size caps).
type Maps interface {
	Resolve(ctx context.Context, stacks []sourcemap.Stack) [][]sourcemap.Resolved
	Text(ctx context.Context, sheet, page string) ([]byte, error)
}

// Place is the Placer of a page's declarations: where the browser gave no
// line (Firefox), the rule is found in the sheet's text; each position is
// then mapped to its original source (.scss…) when the sheet has a map.
func Place(ctx context.Context, page string, m Maps) Placer {
	return func(ds []*Decl, sheets []Sheet) []Position {
		texts := map[string]string{}
		pos := make([]Position, len(ds))
		var frames []sourcemap.Frame
		var at []int
		for i, d := range ds {
			if d.Sheet == nil || *d.Sheet < 0 || *d.Sheet >= len(sheets) {
				continue
			}
			sh := sheets[*d.Sheet]
			p := Position{URL: sh.URL, Line: d.Line, Col: d.Col}
			if p.Line == 0 && !sh.Inline && d.SelectorText != "" {
				text, ok := texts[sh.URL]
				if !ok && len(texts) < MaxSheetsRead {
					b, err := m.Text(ctx, sh.URL, page)
					if err == nil {
						text = string(b)
					}
					texts[sh.URL] = text
				}
				if l, c, found := Locate(text, d.SelectorText, d.Nth, d.Prop); found {
					p.Line, p.Col = l, c
				}
			}
			pos[i] = p
			if p.Line > 0 && !sh.Inline {
				frames = append(frames, sourcemap.Frame{URL: sh.URL, Line: p.Line, Col: max(p.Col, 1)})
				at = append(at, i)
			}
		}
		if len(frames) == 0 {
			return pos
		}
		stacks := []sourcemap.Stack{{Page: page, Frames: frames}}
		for j, r := range m.Resolve(ctx, stacks)[0] {
			if r.Mapped {
				pos[at[j]] = Position{URL: r.Source, Line: r.OLine, Col: r.OCol}
			}
		}
		return pos
	}
}
