//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// bigModule writes src/big.ts (n functions, all kept) and src/entry.ts,
// which loads the app and them: with n = 7200 the map is about 2 MB.
func bigModule(t testing.TB, dir string, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("// Generated: enough code for a map of about 2 MB.\n")
	for i := range n {
		fmt.Fprintf(&b, "export function compute%d(value: number): number {\n  const scaled = value * %d + 1;\n  return scaled > 0 ? scaled - %d : scaled + %d;\n}\n", i, i, i, i)
	}
	b.WriteString("export const all = [")
	for i := range n {
		fmt.Fprintf(&b, "compute%d,", i)
	}
	b.WriteString("];\n")
	if err := os.WriteFile(filepath.Join(dir, "src", "big.ts"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	entry := "import \"./main\";\nimport { all } from \"./big\";\n(window as any).computeAll = all;\n"
	if err := os.WriteFile(filepath.Join(dir, "src", "entry.ts"), []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	esbuild, _ := filepath.Abs("../node_modules/.bin/esbuild")
	cmd := exec.Command(esbuild, "src/entry.ts", "--bundle", "--minify", "--sourcemap", "--outfile=dist/app.js")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, out)
	}
}

// TestSourceMapFigures measures, on a page whose map is about 2 MB, how
// long after the throw the first error is readable in observe at its
// original source, and what a later error's read costs against a read of
// the same page without resolution (the map already read). It reports the
// figures; it asserts only that the stacks are resolved.
func TestSourceMapFigures(t *testing.T) {
	r := newRig(t, "figures-agent", map[string]any{"log_level": "error"})
	dir := buildApp(t, false)
	bigModule(t, dir, 7200)
	st, err := os.Stat(filepath.Join(dir, "dist", "app.js.map"))
	if err != nil {
		t.Fatal(err)
	}
	app := serveApp(t, dir)
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(app.URL+"/index.html")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the app", func() bool {
		ok, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`!!window.app && !!window.computeAll`))
		return err == nil && ok
	})
	// The throw: the page's own clock, then the uncaught error right after.
	throw := func(what string) time.Time {
		ms, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[float64](`(() => { const t = Date.now(); setTimeout(() => app.`+what+`(), 0); return t; })()`))
		if err != nil {
			t.Fatal(err)
		}
		return time.UnixMilli(int64(ms))
	}
	// readable polls observe errors without pause: arrived is when the call
	// that first held the entry began, resolved when the call that held it
	// at its source returned, call how long that call took.
	type figure struct{ arrived, resolved, call time.Duration }
	readable := func(from time.Time, key string) figure {
		var f figure
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			t0 := time.Now()
			res := observe(t, r.ai, map[string]any{"what": "errors", "url_filter": app.URL})
			for _, e := range entries(res) {
				if !strings.Contains(fmt.Sprint(e["message"]), key) {
					continue
				}
				if f.arrived == 0 {
					f.arrived = t0.Sub(from)
				}
				if s, _ := e["stack"].(string); strings.Contains(s, "/src/") {
					f.resolved, f.call = time.Since(from), time.Since(t0)
					return f
				}
			}
		}
		t.Fatalf("%s: not resolved within 30 s", key)
		return f
	}
	first := readable(throw("uncaught"), "rate")
	second := readable(throw("logged"), "total mismatch")
	third := readable(throw("rejection"), "price service")
	var cached []time.Duration
	for range 20 {
		t0 := time.Now()
		observe(t, r.ai, map[string]any{"what": "errors", "url_filter": app.URL})
		cached = append(cached, time.Since(t0).Round(10*time.Microsecond))
	}
	t.Logf("map %d B; first error: %+v; second: %+v; third: %+v; observe errors reads, map cached: %v", st.Size(), first, second, third, cached)
}
