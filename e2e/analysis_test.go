//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/security"
	"github.com/chromedp/chromedp"
)

const (
	shopKey = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrSqUvW"
	shopJWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MiIsIm5hbWUiOiJBZGEifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)

// analysisRoutes are the APIs of shop.html, verify.html and catalog.html.
func analysisRoutes(mux *http.ServeMux) {
	jsonReply := func(w http.ResponseWriter, status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
	// The 5th call and later break the contract: price becomes a string.
	var products atomic.Int32
	mux.HandleFunc("/api/products", func(w http.ResponseWriter, r *http.Request) {
		price := "12.5"
		if products.Add(1) >= 5 {
			price = `"12.50"`
		}
		jsonReply(w, 200, `[{"id":1,"name":"Lamp","price":`+price+`}]`)
	})
	mux.HandleFunc("/api/users/7", func(w http.ResponseWriter, r *http.Request) {
		jsonReply(w, 200, `{"id":7,"name":"Ada Lovelace","email":"ada@lovelace.io","phone":"+442071234567"}`)
	})
	mux.HandleFunc("/api/me", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			jsonReply(w, 401, `{"error":"sign in"}`)
			return
		}
		jsonReply(w, 200, `{"id":42,"email":"ada@lovelace.io"}`)
	})
	mux.HandleFunc("/api/cart", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("bug") == "1" {
			jsonReply(w, 500, `{"error":"cart service down"}`)
			return
		}
		jsonReply(w, 200, `{"items":[]}`)
	})
	mux.HandleFunc("/api/items", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("slow") == "1" {
			time.Sleep(500 * time.Millisecond) // the slow variant's server, not a wait of the test
		}
		jsonReply(w, 200, `[{"id":1}]`)
	})
	// catalog.html's blocking script: slow when the page is the slow variant,
	// so that variant's load event comes late.
	mux.HandleFunc("/catalog.js", func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Referer(), "slow=1") {
			time.Sleep(800 * time.Millisecond)
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, "window.__catalogScript = true;")
	})
}

// visit loads a fixture page and waits until its script says done.
func (r *rig) visit(t *testing.T, path, done string) {
	t.Helper()
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+path)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, path+" to finish", func() bool {
		ok, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`!!(`+done+`)`))
		return err == nil && ok
	})
}

// awaitCaptured waits until observe (what, url_filter, after) holds at least n entries.
func (r *rig) awaitCaptured(t *testing.T, args map[string]any, n int) {
	t.Helper()
	waitFor(t, 20*time.Second, fmt.Sprintf("%d captured %v", n, args), func() bool {
		return len(entries(observe(t, r.ai, args))) >= n
	})
}

func findingRules(report map[string]any) []string {
	var out []string
	for _, f := range report["findings"].([]any) {
		out = append(out, f.(map[string]any)["rule"].(string))
	}
	return out
}

// TestAnalysisFindsTheShopsFlaws: a real page leaks an API key in a query
// string, logs a JWT, reads personal data from an endpoint without
// authentication (and from another with it), and its products API changes
// price from number to string on the 5th call. analyze security and
// analyze api report exactly those, and never a secret in full.
func TestAnalysisFindsTheShopsFlaws(t *testing.T) {
	r := newRig(t, "analysis-agent", map[string]any{"log_level": "all", "network_bodies": true})
	r.visit(t, "/shop.html", "window.__shop && __shop.done")
	r.awaitCaptured(t, map[string]any{"what": "network_bodies", "url_filter": "/api/"}, 7)
	r.awaitCaptured(t, map[string]any{"what": "logs", "url_filter": "shop.html"}, 1)

	// The extension says which request carried an Authorization header, whose value it never sends.
	bodies := entries(observe(t, r.ai, map[string]any{"what": "network_bodies", "url_filter": "/api/"}))
	if me, users := find(bodies, "url", r.site+"/api/me"), find(bodies, "url", r.site+"/api/users/7"); me["has_auth_header"] != true || users["has_auth_header"] != false {
		t.Errorf("has_auth_header: /api/me %v, /api/users/7 %v", me["has_auth_header"], users["has_auth_header"])
	}

	sec := analyze(t, r.ai, map[string]any{"target": "security"})
	text := mustJSON(sec)
	if got := findingRules(sec); !slices.Equal(got, []string{"google_api_key", "pii_without_auth", "jwt_in_log"}) {
		t.Errorf("security findings %v: %s", got, text)
	}
	if strings.Contains(text, shopKey) || strings.Contains(text, shopJWT) || strings.Contains(text, "/api/me") {
		t.Errorf("a secret in full, or the authenticated endpoint: %s", text)
	}
	if !containsAll(text, `"field":"key"`, "key=AIza[redacted]", `"evidence":"eyJhbG…[redacted]"`, `"url":"/api/users/:id"`, `"never_authenticated":true`) {
		t.Errorf("findings lack their redacted evidence: %s", text)
	}

	api := analyze(t, r.ai, map[string]any{"target": "api"})
	eps, _ := api["endpoints"].([]any)
	if len(eps) != 1 {
		t.Fatalf("api: want one endpoint with violations: %s", mustJSON(api))
	}
	ep := eps[0].(map[string]any)
	vs, _ := ep["violations"].([]any)
	if ep["endpoint"] != "GET /api/products" || len(vs) != 1 {
		t.Fatalf("api: %s", mustJSON(api))
	}
	v := vs[0].(map[string]any)
	if v["type"] != "type_change" || !strings.Contains(v["field"].(string), "price") || v["expected"] != "number" || v["actual"] != "string" {
		t.Errorf("violation: %v", v)
	}
	if strings.Contains(mustJSON(api), shopKey) || strings.Contains(mustJSON(api), "Lamp") {
		t.Errorf("api analysis holds a value: %s", mustJSON(api))
	}

	// Each analysis is a line of the audit log, for the dashboard's Audit pane.
	log, _ := os.ReadFile(filepath.Join(testHome, ".gasoline", "audit.jsonl"))
	for _, want := range []string{`"action":"security","result":"3 findings`, `"action":"api","result":"`} {
		if !strings.Contains(string(log), `"agent":"analysis-agent",`+want) {
			t.Errorf("audit log lacks %s:\n%s", want, log)
		}
	}
}

// compareUntilVerdict polls compare until the window could be compared.
func (r *rig) compareUntilVerdict(t *testing.T, id string) map[string]any {
	t.Helper()
	var res map[string]any
	waitFor(t, 10*time.Second, "a verdict", func() bool {
		out := analyze(t, r.ai, map[string]any{"target": "verify", "action": "compare", "session_id": id})
		res, _ = out["result"].(map[string]any)
		return res != nil
	})
	return res
}

// startOnBuggyPage clears the capture, loads the buggy cart, starts a
// session on it and watches; it returns the session and a network cursor.
func (r *rig) startOnBuggyPage(t *testing.T) (string, any) {
	t.Helper()
	analyzeOK := func(args map[string]any) map[string]any { return analyze(t, r.ai, args) }
	if _, isErr, err := callTool(r.ai, "configure", map[string]any{"action": "clear"}); err != nil || isErr {
		t.Fatalf("clear: %v %v", err, isErr)
	}
	r.visit(t, "/verify.html?bug=1", "window.__cart && __cart.done")
	r.awaitCaptured(t, map[string]any{"what": "errors", "url_filter": "verify.html"}, 1)
	r.awaitCaptured(t, map[string]any{"what": "network", "url_filter": "/api/cart", "status_min": 500}, 1)
	start := analyzeOK(map[string]any{"target": "verify", "action": "start", "name": "cart"})
	if b := mustJSON(start["baseline"]); !containsAll(b, `"console_errors":1`, `"network_errors":1`, "reading 'items'", "/api/cart") {
		t.Fatalf("baseline: %s", b)
	}
	id := start["session_id"].(string)
	analyzeOK(map[string]any{"target": "verify", "action": "watch", "session_id": id})
	return id, observe(t, r.ai, map[string]any{"what": "network", "limit": 1})["cursor"]
}

// TestVerifyFixInTheBrowser: baseline on the buggy page, watch, reload
// without the bug: fixed, naming what was resolved; a variant that fails
// differently: different_issue.
func TestVerifyFixInTheBrowser(t *testing.T) {
	r := newRig(t, "verify-agent", map[string]any{"log_level": "all"})

	id, cursor := r.startOnBuggyPage(t)
	r.visit(t, "/verify.html", "window.__cart && __cart.done")
	// A verdict before the reload's request arrives would say the cart was not called again.
	r.awaitCaptured(t, map[string]any{"what": "network", "url_filter": "/api/cart", "after": cursor}, 1)
	res := r.compareUntilVerdict(t, id)
	text := mustJSON(res)
	if res["verdict"] != "fixed" || !containsAll(text, `"type":"resolved"`, "reading 'items'", "GET /api/cart → 500", "GET /api/cart → 200") || strings.Contains(text, "new_issues") {
		t.Errorf("fixed: %s", text)
	}

	id, cursor = r.startOnBuggyPage(t)
	r.visit(t, "/verify.html?bug=2", "window.__cart && __cart.done")
	r.awaitCaptured(t, map[string]any{"what": "network", "url_filter": "/api/cart", "after": cursor}, 1)
	r.awaitCaptured(t, map[string]any{"what": "errors", "url_filter": "bug=2"}, 1)
	res = r.compareUntilVerdict(t, id)
	text = mustJSON(res)
	if res["verdict"] != "different_issue" || !containsAll(text, `"new_issues":[{"after":"RangeError: price out of range","category":"console"}]`, `"type":"resolved"`) {
		t.Errorf("different_issue: %s", text)
	}
}

// TestDiffSlowAndFastLoads: named snapshots of a fast and a slow load of
// the same page (the slow one's API and blocking script answer late); their
// diff flags the endpoint that slowed down and the page load that regressed.
func TestDiffSlowAndFastLoads(t *testing.T) {
	r := newRig(t, "diff-agent", map[string]any{"log_level": "all"})
	newestLoad := func() string {
		pages, _ := observe(t, r.ai, map[string]any{"what": "performance", "url_filter": "/catalog.html"})["pages"].([]any)
		if len(pages) == 0 {
			return ""
		}
		return mustJSON(pages[0].(map[string]any)["ts"])
	}
	snap := func(path, name string) {
		if _, isErr, err := callTool(r.ai, "configure", map[string]any{"action": "clear"}); err != nil || isErr {
			t.Fatalf("clear: %v %v", err, isErr)
		}
		before := newestLoad()
		r.visit(t, path, "window.__catalog && __catalog.done")
		r.awaitCaptured(t, map[string]any{"what": "network", "url_filter": "/api/items"}, 1)
		// The extension reports a page load once it has settled after load.
		waitFor(t, 10*time.Second, path+"'s page-load sample", func() bool { return newestLoad() != before })
		analyze(t, r.ai, map[string]any{"target": "diff", "action": "capture", "name": name})
	}
	snap("/catalog.html", "fast")
	snap("/catalog.html?slow=1", "slow")

	cmp := analyze(t, r.ai, map[string]any{"target": "diff", "action": "compare", "name": "fast", "compare_b": "slow"})
	text := mustJSON(cmp)
	changes, _ := cmp["diff"].(map[string]any)["network"].(map[string]any)["status_changes"].([]any)
	// The slowed API is flagged (the network list has the page's document and scripts too: they may
	// be, when they slowed as well).
	var ch map[string]any
	for _, c := range changes {
		if m, _ := c.(map[string]any); m["url"] == "/api/items" {
			ch = m
		}
	}
	if ch == nil || ch["method"] != "GET" || ch["before"] != float64(200) || ch["after"] != float64(200) ||
		!strings.HasPrefix(fmt.Sprint(ch["duration_change"]), "+") {
		t.Errorf("the slowed endpoint: %v (diff %s)", ch, text)
	}
	load, _ := cmp["diff"].(map[string]any)["performance"].(map[string]any)["load_time"].(map[string]any)
	if load["regression"] != true || !strings.HasPrefix(fmt.Sprint(load["change"]), "+") {
		t.Errorf("the slow page's load is not a regression: %s", text)
	}
	if n, _ := cmp["summary"].(map[string]any)["performance_regressions"].(float64); n < 1 {
		t.Errorf("summary counts no performance regression: %s", text)
	}
	if back := mustJSON(analyze(t, r.ai, map[string]any{"target": "diff", "action": "compare", "name": "slow", "compare_b": "fast"})); !strings.Contains(back, `"duration_change":"-`) {
		t.Errorf("slow → fast: %s", back)
	}
}

// TestAnalysisFindsMixedContent: a page served over HTTPS fetches a script
// over plain HTTP from another host. Chromium blocks the request, the
// extension captures it as failed, and the audit reports mixed content
// from the page's URL. (Loopback hosts are exempt from the transport
// checks, so the HTTP host is one that never resolves.)
func TestAnalysisFindsMixedContent(t *testing.T) {
	r := newRig(t, "mixed-agent", map[string]any{"log_level": "all"})
	tls := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Mixed</title></head><body><h1>mixed</h1><script>
window.__mixed = {};
fetch('http://cdn.shop.invalid/lib.js').catch(() => {}).finally(() => { window.__mixed.done = true; });
</script></body></html>`)
	}))
	// Chromium probes the certificate before it is told to ignore it: no log line for that.
	tls.Config.ErrorLog = log.New(io.Discard, "", 0)
	tls.StartTLS()
	t.Cleanup(tls.Close)
	if err := chromedp.Do(r.b.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, security.SetIgnoreCertificateErrors, security.SetIgnoreCertificateErrorsParams{Ignore: true})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(tls.URL+"/mixed.html")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the mixed page's fetch", func() bool {
		ok, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`!!(window.__mixed && __mixed.done)`))
		return err == nil && ok
	})
	r.awaitCaptured(t, map[string]any{"what": "network", "url_filter": "cdn.shop.invalid"}, 1)

	sec := analyze(t, r.ai, map[string]any{"target": "security", "checks": []any{"transport"}})
	if got := findingRules(sec); !slices.Equal(got, []string{"mixed_content_script"}) {
		t.Fatalf("transport findings %v: %s", got, mustJSON(sec))
	}
	f := sec["findings"].([]any)[0].(map[string]any)
	if sec["origin"] != "http://cdn.shop.invalid" || f["url"] != "/lib.js" || !strings.HasPrefix(f["page"].(string), "https://127.0.0.1:") || f["resource"] != "script" {
		t.Errorf("mixed content finding: %v", f)
	}
}
