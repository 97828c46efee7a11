//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestFirefoxCapture is the capture scenario in Firefox ESR: the Firefox
// build, driven over WebDriver BiDi, and every capture read back through
// `gasoline --mcp`.
func TestFirefoxCapture(t *testing.T) {
	r := newFoxRig(t, "ff-agent", map[string]any{"log_level": "all", "ws_mode": "messages", "network_bodies": true, "action_replay": true})
	ai, site, f := r.ai, r.site, r.f
	page := site + "/capture.html"
	f.navigate(t, f.tab, page)
	waitFor(t, 10*time.Second, "the fixture page's requests", func() bool {
		done, err := f.eval(f.tab, `!!(window.__steps && __steps.ok && __steps.fail && __steps.xhr && __steps.ws)`)
		return err == nil && done == true
	})
	f.click(t, f.tab, "#go")
	f.click(t, f.tab, "#name")
	f.typeText(t, f.tab, "Ada")
	f.click(t, f.tab, "#pw")
	f.typeText(t, f.tab, "hunter2-secret")
	f.click(t, f.tab, "h1") // blur commits the inputs

	// Logs: every level, from the page's first line on.
	logs := awaitConsoleLevels(t, ai)
	if logs["page"] != page {
		t.Errorf("logs page = %v, want %s", logs["page"], page)
	}
	if l := find(entries(logs), "message", "log-line"); l["level"] != "log" || !strings.Contains(mustJSON(l["args"]), "nested") {
		t.Errorf("log-line: %v", l)
	}
	var errs map[string]any
	waitFor(t, 5*time.Second, "errors", func() bool {
		errs = observe(t, ai, map[string]any{"what": "errors"})
		// Firefox's words for a failed fetch.
		return findContains(entries(errs), "message", "NetworkError when attempting to fetch") != nil
	})
	if first := findContains(entries(errs), "message", "first-line boom"); first == nil || first["kind"] != "exception" || !strings.Contains(mustJSON([]any{first["source"], first["stack"]}), "capture.html") {
		t.Errorf("first-line exception: %v (all: %v)", first, errs)
	}
	if rj := findContains(entries(errs), "message", "rejected-boom"); rj == nil || rj["kind"] != "rejection" || rj["stack"] == nil {
		t.Errorf("rejection: %v", rj)
	}

	// Network: 200, 500 and the XHR, with bodies and without secrets.
	var net map[string]any
	waitFor(t, 5*time.Second, "three requests", func() bool {
		net = observe(t, ai, map[string]any{"what": "network", "url_filter": "/api/"})
		return len(entries(net)) >= 3
	})
	for _, want := range []struct {
		path   string
		status float64
		typ    string
	}{{"/api/ok?x=1", 200, "fetch"}, {"/api/fail", 500, "fetch"}, {"/api/xhr", 200, "xhr"}} {
		if e := find(entries(net), "url", site+want.path); e == nil || e["status"] != want.status || e["type"] != want.typ {
			t.Errorf("network %s: %v", want.path, e)
		}
	}
	var bodies map[string]any
	waitFor(t, 5*time.Second, "bodies", func() bool {
		bodies = observe(t, ai, map[string]any{"what": "network_bodies", "url_filter": "/api/"})
		return len(entries(bodies)) >= 3
	})
	if ok := find(entries(bodies), "url", site+"/api/ok?x=1"); ok == nil || ok["response_body"] != `{"ok":true,"items":[1,2,3]}` || !strings.Contains(mustJSON(ok["request_headers"]), "trace-1") {
		t.Errorf("ok body: %v", ok)
	}
	if fail := find(entries(bodies), "url", site+"/api/fail"); fail == nil || fail["request_body"] != `{"order":7}` || fail["response_body"] != `{"error":"db down"}` {
		t.Errorf("fail body: %v", fail)
	}
	all := mustJSON(bodies)
	for _, secret := range []string{"top-secret", "k-123", "cookie-secret", "uthorization", "ookie"} {
		if strings.Contains(all, secret) {
			t.Errorf("network bodies leak %q: %s", secret, all)
		}
	}

	// WebSocket: both directions.
	waitFor(t, 5*time.Second, "websocket events", func() bool {
		ws := observe(t, ai, map[string]any{"what": "websocket_events"})
		return find(entries(ws), "data", "echo:hello-ws") != nil && find(entries(ws), "data", "hello-ws") != nil
	})

	// Actions: the click and the typed name; never the password.
	var acts map[string]any
	waitFor(t, 5*time.Second, "actions", func() bool {
		acts = observe(t, ai, map[string]any{"what": "actions"})
		return find(entries(acts), "selector", "#go") != nil && find(entries(acts), "value", "Ada") != nil
	})
	if strings.Contains(mustJSON(acts), "hunter2") {
		t.Errorf("password value captured: %v", acts)
	}
	waitFor(t, 5*time.Second, "tracked page", func() bool {
		p := observe(t, ai, map[string]any{"what": "page"})
		return p["url"] == page && p["title"] == "Gasoline capture fixture"
	})

	// Performance: the load's sample, taken a second after the load event by
	// the part the worker runs once content.js asks for the settings (Firefox's
	// senders have no documentId: the parts go to the tab's main frame).
	var perf map[string]any
	waitFor(t, 10*time.Second, "the page-load sample", func() bool {
		pages, _ := observe(t, ai, map[string]any{"what": "performance", "url_filter": "capture.html"})["pages"].([]any)
		if len(pages) == 0 {
			return false
		}
		perf = pages[0].(map[string]any)
		return true
	})
	for _, m := range []string{"ttfb", "dom_content_loaded", "load_time", "request_count"} {
		if _, ok := perf[m]; !ok || perf["url"] != page {
			t.Errorf("performance sample has no %s or is of another page: %v", m, perf)
		}
	}
}
