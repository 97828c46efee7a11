package sourcemap

import (
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

// Rendered is a stack as the AI reads it.
type Rendered struct {
	// Stack: one frame a line, "name file:line:col"; a frame in the same
	// file as the line above shows ":line:col" only; files on the page's
	// own origin are paths; library frames (node_modules) are folded into
	// a last line "+N node_modules frames".
	Stack string
	// Code is the top resolved frame's original line and one either side.
	Code string
	// Top is the first frame shown, "file:line:col" in full, for fields
	// that name one position (an exception's source).
	Top string
	// First is the first frame shown as its stack line ("name file:line:col").
	First string
}

// Render writes a resolved stack densely. origin is the page's origin,
// which the result states once: frames on it are shown as paths.
func Render(frames []Resolved, origin string) Rendered {
	var out Rendered
	var b strings.Builder
	prev := ""
	folded := 0
	lines := 0
	coded := false
	for _, f := range frames {
		if !f.IsFrame() {
			if lines > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(f.Raw)
			lines++
			prev = ""
			continue
		}
		file, line, col := f.URL, f.Line, f.Col
		if f.Mapped {
			file, line, col = f.Source, f.OLine, f.OCol
		}
		if strings.Contains(file, "/node_modules/") {
			folded++
			continue
		}
		file = Relative(file, origin)
		pos := ":" + itoa(line) + ":" + itoa(col)
		if out.Top == "" {
			out.Top = file + pos
			out.First = out.Top
			if f.Name != "" {
				out.First = f.Name + " " + out.Top
			}
		}
		if f.Mapped && !coded {
			coded = true
			out.Code = f.Lines()
		}
		if lines > 0 {
			b.WriteByte('\n')
		}
		lines++
		if f.Name != "" {
			b.WriteString(f.Name)
			b.WriteByte(' ')
		}
		if file != prev {
			b.WriteString(file)
			prev = file
		}
		b.WriteString(pos)
	}
	if folded > 0 {
		if lines > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("+" + itoa(folded) + " node_modules frames")
	}
	out.Stack = b.String()
	return out
}

// Relative shows a URL on origin as its path.
func Relative(u, origin string) string {
	if origin == "" {
		return u
	}
	if rest, ok := strings.CutPrefix(u, origin); ok && strings.HasPrefix(rest, "/") {
		return rest
	}
	return u
}
