package sourcemap

import (
	"context"
	"fmt"
	"strings"
)

// Resolved is a frame at its original position when its script has a map.
type Resolved struct {
	Frame
	Mapped bool
	Source string // original source, as the map names it
	OLine  int    // original line, 1-based
	OCol   int    // original column, 1-based
	Name   string // original function name when known, else Frame.Func
	// code is the original source text, from the map's sourcesContent.
	code *text
}

// Stack is one entry's frames and the URL of the page that produced them.
type Stack struct {
	Page   string
	Frames []Frame
}

// MaxScriptsPerRead bounds the scripts one Resolve reads: a stack's URLs
// are the page's to write.
const MaxScriptsPerRead = 32

// scripts lists the scripts of the stacks, once each, with the page that
// named each first. A frame in the page's own document (an inline script)
// is not read: fetching a page again can act (an OAuth callback spends its
// code), and inline scripts seldom have maps.
func scripts(stacks []Stack) (urls []string, page map[string]string) {
	page = map[string]string{}
	for _, st := range stacks {
		doc, _, _ := strings.Cut(st.Page, "#")
		for _, f := range st.Frames {
			if _, ok := page[f.URL]; f.IsFrame() && !ok && f.URL != doc && len(urls) < MaxScriptsPerRead {
				page[f.URL] = st.Page
				urls = append(urls, f.URL)
			}
		}
	}
	return urls, page
}

// Resolve maps every frame of every stack it is given, reading each
// script's map at most once; frames whose script has no usable map stay as
// they are.
func (r *Resolver) Resolve(ctx context.Context, stacks []Stack) [][]Resolved {
	urls, pages := scripts(stacks)
	maps := r.maps(ctx, urls, pages)
	out := make([][]Resolved, len(stacks))
	for i, st := range stacks {
		fs := st.Frames
		rs := make([]Resolved, len(fs))
		for j, f := range fs {
			rs[j] = Resolved{Frame: f, Name: f.Func}
			m := maps[f.URL]
			if m == nil || !f.IsFrame() {
				continue
			}
			src, _, line, col, ok := r.lookup(m, f)
			if !ok || src == "" {
				continue
			}
			rs[j].Mapped, rs[j].Source, rs[j].OLine, rs[j].OCol = true, src, line, col+1
			rs[j].code = m.text(src)
		}
		// A minifier renames functions: a frame takes its name from the
		// original source around it, else from its caller's call site,
		// which names the callee as written.
		for j := range rs {
			if !rs[j].Mapped {
				continue
			}
			if name := enclosing(rs[j].code, rs[j].OLine, rs[j].OCol); name != "" {
				rs[j].Name = name
				continue
			}
			if j+1 < len(rs) && rs[j+1].Mapped {
				if _, name, _, _, ok := r.lookup(maps[fs[j+1].URL], fs[j+1]); ok && name != "" {
					rs[j].Name = name
				}
			}
		}
		out[i] = rs
	}
	return out
}

// lookup maps one frame. The parser trusts the map's indexes; a map that
// names a source or name it does not list makes it panic, which here
// leaves the frame unmapped and the map forgotten, and says why.
func (r *Resolver) lookup(m *srcMap, f Frame) (source, name string, line, col int, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			source, name, line, col, ok = "", "", 0, 0, false
			_ = r.failed(f.URL, fmt.Sprintf("map is malformed: %v", p))
		}
	}()
	return m.Source(f.Line, max(f.Col-1, 0))
}

// Lines returns the original line of a resolved frame and one line either
// side, numbered, with their common indentation removed; "" when the map
// carries no source text.
func (f Resolved) Lines() string {
	if !f.Mapped || f.code == nil {
		return ""
	}
	if f.OLine < 1 || f.OLine > f.code.lines() {
		return ""
	}
	from, to := max(f.OLine-1, 1), min(f.OLine+1, f.code.lines())
	lines := make([]string, 0, 3)
	indent := -1
	for n := from; n <= to; n++ {
		l := strings.TrimRight(f.code.line(n), " \t\r")
		lines = append(lines, l)
		if t := strings.TrimLeft(l, " \t"); t != "" {
			if d := len(l) - len(t); indent < 0 || d < indent {
				indent = d
			}
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(itoa(from + i))
		b.WriteString(": ")
		if len(l) >= indent && indent > 0 {
			l = l[indent:]
		}
		b.WriteString(clipLine(l))
	}
	return b.String()
}

func clipLine(l string) string {
	if len(l) > 300 {
		return l[:300] + "…"
	}
	return l
}
