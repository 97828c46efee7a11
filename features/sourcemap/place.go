package sourcemap

import "context"

// Thrown is an error as the browser reported it: its stack, and the script
// position ("url:line:col") its source names, on a page.
type Thrown struct {
	Page, Stack, Source string
}

// Placed is a thrown error at its original sources, as the AI reads it: the
// stack, the original code around its top frame, and the source, left out
// when it is the stack's first frame (it would say the same twice).
type Placed struct {
	Stack, Code, Source string
}

// Place resolves the errors together, so that each script's map is read
// once. A source no map places stays as the browser gave it.
func (r *Resolver) Place(ctx context.Context, ts []Thrown) []Placed {
	// Each error contributes its stack, then its source as a one-frame stack.
	stacks := make([]Stack, 0, 2*len(ts))
	for _, t := range ts {
		stacks = append(stacks, Stack{Page: t.Page, Frames: Parse(t.Stack)})
		var src []Frame
		if t.Source != "" {
			src = []Frame{Parse("at " + t.Source)[0]}
		}
		stacks = append(stacks, Stack{Page: t.Page, Frames: src})
	}
	resolved := r.Resolve(ctx, stacks)
	out := make([]Placed, len(ts))
	for i, t := range ts {
		origin := OriginOf(t.Page)
		st := Render(resolved[2*i], origin)
		p := Placed{Stack: st.Stack, Code: st.Code}
		if src := resolved[2*i+1]; len(src) == 1 {
			if top := stacks[2*i].Frames; len(top) == 0 || !sameFrame(top, src[0].Frame) {
				so := Render(src, origin)
				p.Source = so.Top
				if so.Top == "" {
					p.Source = t.Source
				}
				if p.Code == "" {
					p.Code = so.Code
				}
			}
		}
		out[i] = p
	}
	return out
}

// sameFrame says whether an exception's source is its stack's first frame.
func sameFrame(stack []Frame, src Frame) bool {
	for _, f := range stack {
		if f.IsFrame() {
			return f.URL == src.URL && f.Line == src.Line && f.Col == src.Col
		}
	}
	return false
}
