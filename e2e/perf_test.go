//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// switchFixture flips the fixture server's finder switches.
func switchFixture(t testing.TB, site string, broken bool, delayMS int) {
	t.Helper()
	b := 0
	if broken {
		b = 1
	}
	resp, err := http.Post(fmt.Sprintf("%s/fixture/switch?broken=%d&delay_ms=%d", site, b, delayMS), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// loadFinder loads finder.html and waits until its page-load sample is at
// the server, newer than the one before.
func loadFinder(t testing.TB, r *rig, prevTS any) map[string]any {
	t.Helper()
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/finder.html")); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	var page map[string]any
	waitFor(t, 10*time.Second, "the page-load sample", func() bool {
		res := observe(t, r.ai, map[string]any{"what": "performance", "url_filter": "finder.html"})
		pages, _ := res["pages"].([]any)
		if len(pages) == 0 {
			return false
		}
		page = pages[0].(map[string]any)
		return page["ts"] != prevTS
	})
	return page
}

// TestPerformanceRegressionE2E: the extension measures each load of the
// finder; three fast loads make the baseline, and a load whose script the
// server delays is flagged as a regression of the load time.
func TestPerformanceRegressionE2E(t *testing.T) {
	r := newRig(t, "perf-agent", map[string]any{})
	var last any
	for i := range 3 {
		p := loadFinder(t, r, last)
		last = p["ts"]
		for _, m := range []string{"ttfb", "dom_content_loaded", "load_time", "fcp", "request_count"} {
			if _, ok := p[m]; !ok {
				t.Fatalf("load %d: no %s in %v", i, m, p)
			}
		}
		if !strings.Contains(mustJSON(p["by_type"]), `"script"`) || p["url"] != r.site+"/finder.html" {
			t.Fatalf("load %d: %v", i, p)
		}
	}
	if v := analyze(t, r.ai, map[string]any{"target": "performance", "url_filter": "finder.html"}); v["verdict"] != "ok" {
		t.Fatalf("steady loads: %v", v)
	}

	switchFixture(t, r.site, false, 900)
	p := loadFinder(t, r, last)
	if p["load_time"].(float64) < 900 {
		t.Fatalf("the slowed load took %v ms", p["load_time"])
	}
	v := analyze(t, r.ai, map[string]any{"target": "performance", "url_filter": "finder.html"})
	if v["verdict"] != "regressed" || !strings.Contains(mustJSON(v["pages"]), "load_time") ||
		!strings.Contains(v["report"].(string), "REGRESS") {
		t.Fatalf("slowed load not flagged: %v", v)
	}
}

// TestGeneratedTestAndHARE2E plays a human on the finder (type a city,
// submit, read the answer), then runs the Playwright test Gasoline
// generates from that session against the same site: green while the site
// works, red once its API breaks. The HAR of the session validates as HAR
// 1.2 and replays in Playwright in place of the broken API.
func TestGeneratedTestAndHARE2E(t *testing.T) {
	r := newRig(t, "testgen-agent", map[string]any{"action_replay": true, "network_bodies": true})
	b := r.b
	if err := chromedp.Do(b.ctx,
		chromedp.Navigate(r.site+"/finder.html"),
		chromedp.Click(chromedp.CSS("#city")),
		chromedp.SendKeys(chromedp.CSS("#city"), "Lyon"),
		chromedp.Click(chromedp.CSS("button[type=submit]")),
	); err != nil {
		t.Fatalf("drive the finder: %v", err)
	}
	var shown string
	waitFor(t, 10*time.Second, "the search result", func() bool {
		var err error
		shown, err = chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById('result').textContent`))
		return err == nil && shown != ""
	})
	if shown != "2 stations in Lyon" {
		t.Fatalf("the finder shows %q", shown)
	}
	waitFor(t, 10*time.Second, "the submit and the API body at the server", func() bool {
		acts := observe(t, r.ai, map[string]any{"what": "actions", "url_filter": "finder.html"})
		bodies := observe(t, r.ai, map[string]any{"what": "network_bodies", "url_filter": "/api/stations"})
		return strings.Contains(mustJSON(acts), "Lyon") && len(entries(bodies)) > 0
	})

	gen, isErr, err := callTool(r.ai, "generate", map[string]any{"format": "test", "name": "find stations"})
	if err != nil || isErr {
		t.Fatalf("generate test: %v %v", err, gen)
	}
	script := gen["script"].(string)
	if !containsAll(script, "find stations", "Lyon", "/api/stations", "2 stations in Lyon") {
		t.Fatalf("generated test misses the flow:\n%s", script)
	}
	dir := playwrightDir(t)
	spec := filepath.Join(dir, gen["filename"].(string))
	if err := os.WriteFile(spec, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := runPlaywright(dir); err != nil {
		t.Fatalf("generated test fails against the working site: %v\n%s\n%s", err, out, script)
	}
	switchFixture(t, r.site, true, 0)
	out, err := runPlaywright(dir)
	if err == nil || !strings.Contains(out, "503") {
		t.Fatalf("generated test passes against the broken site (err %v):\n%s", err, out)
	}

	// The API is still broken: the replay must come from the HAR alone.
	h, isErr, err := callTool(r.ai, "generate", map[string]any{"format": "har", "url_filter": "/api/stations"})
	if err != nil || isErr || h["entries"] != float64(1) {
		t.Fatalf("generate har: %v %v", err, h)
	}
	path := h["path"].(string)
	if !strings.HasPrefix(path, filepath.Join(testHome, ".gasoline", "har")) {
		t.Fatalf("HAR written to %s", path)
	}
	cmd := exec.Command("node", "testdata/har-replay.cjs", path, r.site, "Lyon")
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromiumPath())
	replay, err := cmd.CombinedOutput()
	if err != nil || !containsAll(string(replay), "valid HAR 1.2", "replayed: 2 stations in Lyon") {
		t.Fatalf("HAR replay: %v\n%s", err, replay)
	}
}

// playwrightDir is a temp dir with a Playwright config that runs the
// Debian Chromium (no browser download) and sees the repository's
// node_modules.
func playwrightDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	mods, err := filepath.Abs("../node_modules")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(mods, "@playwright", "test")); err != nil {
		t.Fatalf("@playwright/test missing (run npm ci): %v", err)
	}
	if err := os.Symlink(mods, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`module.exports = {
  testDir: '.',
  timeout: 20000,
  workers: 1,
  retries: 0,
  reporter: 'line',
  use: { headless: true, launchOptions: { executablePath: %q, args: ['--no-sandbox'] } },
};
`, chromiumPath())
	if err := os.WriteFile(filepath.Join(dir, "playwright.config.js"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runPlaywright runs `npx playwright test` in dir and returns its output.
func runPlaywright(dir string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npx", "--no-install", "playwright", "test")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1", "CI=1", "FORCE_COLOR=0")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPageLoadVitals: content/perf.js reads the vitals from the performance
// timeline's buffers a second after the load (no observers from the load,
// issue 12): vitals.html's largest paint, its 120 ms long task during the
// load and the layout shift of a banner inserted after its first paint all
// reach the server.
func TestPageLoadVitals(t *testing.T) {
	r := newRig(t, "vitals-agent", map[string]any{})
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/vitals.html")); err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	waitFor(t, 10*time.Second, "the page-load sample", func() bool {
		pages, _ := observe(t, r.ai, map[string]any{"what": "performance", "url_filter": "vitals.html"})["pages"].([]any)
		if len(pages) > 0 {
			p = pages[0].(map[string]any)
		}
		return p != nil
	})
	num := func(k string) float64 { v, _ := p[k].(float64); return v }
	if num("lcp") <= 0 || num("fcp") <= 0 || num("long_tasks") < 1 || num("longest_task") < 100 || num("cls") <= 0 {
		t.Fatalf("vitals of vitals.html: %v", mustJSON(p))
	}
}
