//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestFirefoxSourceMappedErrors: the esbuild fixture app's three errors in
// Firefox ESR (whose stacks read "fn@url:line:col"), with an external map
// and with an inline one, at their original sources.
func TestFirefoxSourceMappedErrors(t *testing.T) {
	r := newFoxRig(t, "ff-sm-agent", map[string]any{"log_level": "error"})
	for _, inline := range []bool{false, true} {
		app := serveApp(t, buildApp(t, inline))
		r.f.navigate(t, r.f.tab, app.URL+"/index.html")
		waitFor(t, 10*time.Second, "the app", func() bool {
			ok, err := r.f.eval(r.f.tab, `!!window.app`)
			return err == nil && ok == true
		})
		if _, err := r.f.eval(r.f.tab, throwThree); err != nil {
			t.Fatal(err)
		}
		by := awaitThree(t, r.ai, app.URL, true)
		checkMapped(t, by)
		if s, _ := by["reading 'rate'"]["stack"].(string); strings.Contains(s, "/dist/app.js") {
			t.Errorf("a frame left unmapped: %q", s)
		}
	}
}
