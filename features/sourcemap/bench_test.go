package sourcemap

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// bigMap is a map of about 2 MB shaped like a minifier's: one generated
// line, a segment every 5 columns, each on the next original line and
// naming a function, with the original text in sourcesContent.
func bigMap(b *testing.B) (script, smap []byte) {
	const n = 280_000
	var m strings.Builder
	m.Grow(n * 6)
	m.WriteString("AAAAA")
	for range n - 1 {
		m.WriteString(",KACAA")
	}
	var src strings.Builder
	for i := range n / 40 {
		fmt.Fprintf(&src, "export function compute%d(v: number) { return v * %d; }\n", i, i)
	}
	raw, err := json.Marshal(map[string]any{"version": 3, "sources": []string{"../src/big.ts"}, "names": []string{"compute"},
		"sourcesContent": []string{src.String()}, "mappings": m.String()})
	if err != nil {
		b.Fatal(err)
	}
	return []byte("(()=>{})();\n//# sourceMappingURL=app.js.map\n"), raw
}

// BenchmarkFirstRead is an error's first read on a page whose map is ~2 MB:
// the script and the map read over loopback, parsed, and the stack mapped.
// BenchmarkCachedRead is every read after it.
func BenchmarkFirstRead(b *testing.B) { benchRead(b, false) }

func BenchmarkCachedRead(b *testing.B) { benchRead(b, true) }

func benchRead(b *testing.B, cached bool) {
	script, smap := bigMap(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".map") {
			w.Write(smap)
			return
		}
		w.Write(script)
	}))
	defer srv.Close()
	st := []Stack{on(srv.URL, "TypeError: x\n    at a ("+srv.URL+"/app.js:1:500001)\n    at b ("+srv.URL+"/app.js:1:250001)")}
	r := New(Config{})
	if cached {
		r.Resolve(context.Background(), st)
	}
	b.ResetTimer()
	for range b.N {
		if !cached {
			r = New(Config{})
		}
		got := r.Resolve(context.Background(), st)
		if !got[0][1].Mapped {
			b.Fatalf("not mapped: %+v %+v", got[0][1], r.Stats())
		}
		Render(got[0], srv.URL)
	}
	b.ReportMetric(float64(len(smap))/1e6, "MB-map")
}
