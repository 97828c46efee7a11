//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// TestEveryRequestReachesTheAI: the browser's own requests (the document,
// a 404 script, a 404 image, a stylesheet), which no page-world hook sees,
// reach observe network beside the page's fetches (sw/requests.js), with
// their type, filtered by status_min and url_filter alike; a fetch the hooks
// saw is listed once, a failed one with the browser's reason beside the
// page's; an image the page gave up on is listed with its error.
func TestEveryRequestReachesTheAI(t *testing.T) {
	r := newRig(t, "requests-agent", map[string]any{"network_bodies": true})
	r.visit(t, "/requests.html", "window.__done && __done.fail && __done.ok && __done.abort && __done.dropped")
	site := r.site
	failed := threeFailedRequests(t, r.ai, site)
	for _, want := range []struct {
		path, typ string
		status    float64
	}{{"/assets/hero.png", "image", 404}, {"/missing.js", "script", 404}, {"/api/fail", "fetch", 500}} {
		if e := find(failed, "url", site+want.path); e["type"] != want.typ || e["status"] != want.status || e["method"] != "GET" {
			t.Errorf("%s: %v, want type %s status %v", want.path, e, want.typ, want.status)
		}
	}
	for _, e := range failed {
		if s, _ := e["status"].(float64); s < 400 {
			t.Errorf("status_min 400 listed %v", e)
		}
	}
	hero := entries(observe(t, r.ai, map[string]any{"what": "network", "status_min": 400, "url_filter": "hero"}))
	if len(hero) != 1 || hero[0]["type"] != "image" {
		t.Errorf("status_min 400, url_filter hero: %s", mustJSON(hero))
	}

	// The fetches are listed once each: the hooks' entries, with their phases' source.
	waitFor(t, 10*time.Second, "the page's document and its fetches", func() bool {
		all := entries(observe(t, r.ai, map[string]any{"what": "network", "limit": 100}))
		return find(all, "url", site+"/requests.html") != nil && find(all, "url", site+"/api/ok?x=2") != nil
	})
	// Until the worker holds no browser copy waiting for a join, nor anything undelivered: a copy the
	// join missed is then listed.
	waitFor(t, 10*time.Second, "the worker to hold nothing", func() bool {
		idle, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](`(() => { const s = status(); return s.requests.pending === 0 && s.queued === 0; })()`))
		return err == nil && idle
	})
	all := entries(observe(t, r.ai, map[string]any{"what": "network", "limit": 100}))
	count := map[string]int{}
	for _, e := range all {
		count[fmt.Sprint(e["url"])]++
	}
	for _, u := range []string{"/api/fail", "/api/ok?x=2", "/api/dropped", "/requests.html", "/missing.js", "/assets/hero.png", "/res/requests.css"} {
		if count[site+u] != 1 {
			t.Errorf("%s listed %d times: %s", u, count[site+u], mustJSON(all))
		}
	}
	if d := find(all, "url", site+"/api/dropped"); d["type"] != "fetch" || d["failed"] != true ||
		!strings.Contains(fmt.Sprint(d["error"]), "Failed to fetch") || !strings.Contains(fmt.Sprint(d["error"]), "net::ERR_EMPTY_RESPONSE") {
		t.Errorf("the dropped fetch: %v, want the hooks' entry with the page's error and the browser's", d)
	}
	if d := find(all, "url", site+"/requests.html"); d["type"] != "document" || d["status"] != float64(200) {
		t.Errorf("document: %v", d)
	}
	if c := find(all, "url", site+"/res/requests.css"); c["type"] != "stylesheet" || c["status"] != float64(200) {
		t.Errorf("stylesheet: %v", c)
	}
	if ok := find(all, "url", site+"/api/ok?x=2"); ok["type"] != "fetch" {
		t.Errorf("the fetch is not the hooks' entry: %v", ok)
	}
	// The image the page gave up on.
	var gone map[string]any
	waitFor(t, 10*time.Second, "the image given up", func() bool {
		g := entries(observe(t, r.ai, map[string]any{"what": "network", "url_filter": "given-up"}))
		if len(g) > 0 {
			gone = g[0]
		}
		return gone != nil
	})
	if gone["type"] != "image" || gone["aborted"] != true || !strings.Contains(fmt.Sprint(gone["error"]), "ERR_ABORTED") {
		t.Errorf("the image given up: %v", gone)
	}
}

// TestHARHasEveryRequestAndThePageTimings: generate har lists the page's
// document, script, image, stylesheet and fetches, in a page for the load
// whose timings are the ones the page measured (DOMContentLoaded and load,
// as the dashboard shows them), every entry pointing at it; loading the same
// page again is a second page, not the first one's.
func TestHARHasEveryRequestAndThePageTimings(t *testing.T) {
	r := newRig(t, "har-agent", map[string]any{"network_bodies": true})
	site := r.site
	// The same page loaded twice: two pages of one URL. The performance store keeps a page's newest
	// load, so each is awaited before the next.
	var perfPages []any
	lastTS := ""
	for i := range 2 {
		r.visit(t, "/requests.html", "window.__done && __done.fail && __done.ok && __done.abort")
		waitFor(t, 15*time.Second, fmt.Sprintf("load %d measured", i+1), func() bool {
			perfPages, _ = observe(t, r.ai, map[string]any{"what": "performance", "url_filter": "requests.html"})["pages"].([]any)
			if len(perfPages) != 1 {
				return false
			}
			ts := fmt.Sprint(perfPages[0].(map[string]any)["ts"])
			if ts == lastTS {
				return false
			}
			lastTS = ts
			return true
		})
	}
	waitFor(t, 10*time.Second, "the worker to hold nothing", func() bool {
		idle, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](`(() => { const s = status(); return s.requests.pending === 0 && s.queued === 0; })()`))
		return err == nil && idle
	})
	res, isErr, err := callTool(r.ai, "generate", map[string]any{"format": "har"})
	if err != nil || isErr {
		t.Fatalf("generate har: %v %v", err, res)
	}
	raw, _ := json.Marshal(res["har"])
	if res["har"] == nil {
		raw, err = os.ReadFile(fmt.Sprint(res["path"]))
		if err != nil {
			t.Fatal(err)
		}
	}
	var h struct {
		Log struct {
			Pages []struct {
				ID, Title, StartedDateTime string
				PageTimings                struct{ OnContentLoad, OnLoad float64 }
			}
			Entries []struct {
				PageRef  string
				Request  struct{ Method, URL string }
				Response struct {
					Status  int
					Content struct{ MimeType string }
				}
			}
		}
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	validHAR(t, raw)
	if len(h.Log.Pages) != 2 {
		t.Fatalf("pages: %s", clipJSON(h.Log.Pages, 2000))
	}
	for i, want := range []string{site + "/requests.html", site + "/requests.html"} {
		p := h.Log.Pages[i]
		if p.Title != want || p.PageTimings.OnContentLoad <= 0 || p.PageTimings.OnLoad < p.PageTimings.OnContentLoad {
			t.Errorf("page %d: %+v, want %s with its timings (the page measured: %s)", i+1, p, want, clipJSON(perfPages, 1500))
		}
		got := map[string]int{}
		mime := map[string]string{}
		for _, e := range h.Log.Entries {
			if e.PageRef == p.ID {
				got[strings.TrimPrefix(e.Request.URL, site)] = e.Response.Status
				mime[strings.TrimPrefix(e.Request.URL, site)] = e.Response.Content.MimeType
			}
		}
		// The browser's own requests have the media type the server sent, as DevTools writes it.
		if m := mime["/res/requests.css"]; m != "text/css" {
			t.Errorf("page %d: /res/requests.css has mimeType %q, want text/css", i+1, m)
		}
		for u, status := range map[string]int{strings.TrimPrefix(want, site): 200, "/missing.js": 404, "/assets/hero.png": 404,
			"/res/requests.css": 200, "/api/fail": 500, "/api/ok?x=2": 200} {
			if s, ok := got[u]; !ok || s != status {
				t.Errorf("page %d: %s has status %d (listed: %v), want %d; entries %v", i+1, u, s, ok, status, got)
			}
		}
	}
}

// validHAR checks an archive against the HAR 1.2 schema as har-validator
// does (ajv and the npm package har-schema, as e2e/testdata/har-replay.cjs).
func validHAR(t *testing.T, archive []byte) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "a.har")
	if err := os.WriteFile(f, archive, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "-e", `
const Ajv = require('ajv');
const schemas = require('har-schema');
const ajv = new Ajv({ allErrors: true });
ajv.addMetaSchema(require('ajv/lib/refs/json-schema-draft-06.json'));
for (const s of Object.values(schemas)) ajv.addSchema(s);
const valid = ajv.getSchema('har.json#');
if (!valid(JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8')))) {
  console.error(ajv.errorsText(valid.errors));
  process.exit(1);
}`, f)
	cmd.Dir = ".." // the repository's node_modules
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("not HAR 1.2: %v %s", err, out)
	}
}

// threeFailedRequests waits until requests.html's 404 image, 404 script and
// 500 fetch are listed with status_min 400, and returns that list.
func threeFailedRequests(t *testing.T, c mcpClient, site string) []map[string]any {
	t.Helper()
	var failed []map[string]any
	if !wait.Until(15*time.Second, func() bool {
		failed = entries(observe(t, c, map[string]any{"what": "network", "status_min": 400}))
		return find(failed, "url", site+"/assets/hero.png") != nil && find(failed, "url", site+"/missing.js") != nil &&
			find(failed, "url", site+"/api/fail") != nil
	}) {
		t.Fatalf("the three failed requests not listed after 15s: %s\nall: %s", mustJSON(failed),
			mustJSON(observe(t, c, map[string]any{"what": "network", "limit": 100})))
	}
	return failed
}
