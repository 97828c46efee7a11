package sourcemap

import (
	"strings"
	"sync"

	sm "github.com/go-sourcemap/sourcemap"
)

// srcMap is a parsed map and the line index of each original source text
// it carries, built on first use.
type srcMap struct {
	*sm.Consumer
	texts sync.Map // source → *text
}

// text returns a source's text from sourcesContent, nil when it has none.
func (m *srcMap) text(source string) *text {
	if t, ok := m.texts.Load(source); ok {
		return t.(*text)
	}
	code := m.SourceContent(source)
	if code == "" {
		return nil
	}
	t, _ := m.texts.LoadOrStore(source, newText(code))
	return t.(*text)
}

// text is a source's text with where each line starts.
type text struct {
	code   string
	starts []int32
}

func newText(code string) *text {
	t := &text{code: code, starts: make([]int32, 1, strings.Count(code, "\n")+1)}
	for i := range len(code) {
		if code[i] == '\n' {
			t.starts = append(t.starts, int32(i+1))
		}
	}
	return t
}

func (t *text) lines() int { return len(t.starts) }

// line returns line n (1-based) without its newline.
func (t *text) line(n int) string {
	end := len(t.code)
	if n < len(t.starts) {
		end = int(t.starts[n]) - 1
	}
	return t.code[t.starts[n-1]:end]
}
