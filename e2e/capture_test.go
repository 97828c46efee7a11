//go:build e2e

package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
)

// TestCaptureEndToEnd drives the fixture page in headless Chromium with the
// real extension, and reads every capture back through `gasoline --mcp`.
func TestCaptureEndToEnd(t *testing.T) {
	r := newRig(t, "e2e-agent", map[string]any{"log_level": "all", "ws_mode": "messages", "network_bodies": true, "action_replay": true})
	ai, site, b := r.ai, r.site, r.b

	page := site + "/capture.html"
	if err := chromedp.Do(b.ctx, chromedp.Navigate(page)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	// Poll in the page's main world (chromedp.Poll may pick the extension's
	// isolated world, where the page's globals do not exist).
	waitFor(t, 10*time.Second, "the fixture page's requests", func() bool {
		done, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!(window.__steps && __steps.ok && __steps.fail && __steps.xhr && __steps.ws)`))
		return err == nil && done
	})
	if err := chromedp.Do(b.ctx,
		chromedp.Click(chromedp.CSS("#go")),
		chromedp.SendKeys(chromedp.CSS("#name"), "Ada"),
		chromedp.SendKeys(chromedp.CSS("#pw"), "hunter2-secret"),
		chromedp.Click(chromedp.CSS("h1")), // blur commits the inputs
	); err != nil {
		t.Fatalf("drive page: %v", err)
	}

	// Logs: every level, newest first, page said once.
	logs := awaitConsoleLevels(t, ai)
	if logs["page"] != page {
		t.Errorf("logs page = %v, want %s said once", logs["page"], page)
	}
	logLine := find(entries(logs), "message", "log-line")
	if logLine["level"] != "log" || !strings.Contains(mustJSON(logLine["args"]), "nested") || !strings.Contains(mustJSON(logLine["args"]), "42") {
		t.Errorf("log-line: %v", logLine)
	}

	// Errors: the page's very first line, a rejection, console.error.
	var errs map[string]any
	waitFor(t, 5*time.Second, "errors", func() bool {
		errs = observe(t, ai, map[string]any{"what": "errors"})
		return len(entries(errs)) >= 3
	})
	first := findContains(entries(errs), "message", "first-line boom")
	if first == nil || first["kind"] != "exception" || !strings.Contains(mustJSON([]any{first["source"], first["stack"]}), "capture.html") {
		t.Errorf("first-line exception: %v (all: %v)", first, errs)
	}
	if r := findContains(entries(errs), "message", "rejected-boom"); r == nil || r["kind"] != "rejection" || r["stack"] == nil {
		t.Errorf("rejection: %v", r)
	}
	// Wrapping fetch must not swallow the page's own unhandled rejection.
	waitFor(t, 5*time.Second, "the unhandled fetch failure", func() bool {
		errs = observe(t, ai, map[string]any{"what": "errors"})
		r := findContains(entries(errs), "message", "Failed to fetch")
		return r != nil && r["kind"] == "rejection"
	})

	// Network waterfall: 200, 500 and the XHR.
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
		e := find(entries(net), "url", site+want.path)
		if e == nil || e["status"] != want.status || e["type"] != want.typ || e["duration_ms"] == nil {
			t.Errorf("network %s: %v", want.path, e)
		}
	}
	if f := observe(t, ai, map[string]any{"what": "network", "status_min": 500}); len(entries(f)) != 1 {
		t.Errorf("status_min 500: %v", f)
	}
	waitFor(t, 5*time.Second, "the failed request", func() bool {
		e := find(entries(observe(t, ai, map[string]any{"what": "network", "url_filter": "unreachable"})), "url", "http://127.0.0.1:9/unreachable")
		return e != nil && e["failed"] == true && e["status"] == nil
	})

	// Bodies, without secrets.
	var bodies map[string]any
	waitFor(t, 5*time.Second, "bodies", func() bool {
		bodies = observe(t, ai, map[string]any{"what": "network_bodies", "url_filter": "/api/"})
		return len(entries(bodies)) >= 3
	})
	ok := find(entries(bodies), "url", site+"/api/ok?x=1")
	if ok == nil || ok["response_body"] != `{"ok":true,"items":[1,2,3]}` || !strings.Contains(mustJSON(ok["request_headers"]), "trace-1") {
		t.Errorf("ok body: %v", ok)
	}
	fail := find(entries(bodies), "url", site+"/api/fail")
	if fail == nil || fail["request_body"] != `{"order":7}` || fail["response_body"] != `{"error":"db down"}` || fail["status"] != float64(500) {
		t.Errorf("fail body: %v", fail)
	}
	all := mustJSON(bodies)
	for _, secret := range []string{"top-secret", "k-123", "cookie-secret", "uthorization", "ookie"} {
		if strings.Contains(all, secret) {
			t.Errorf("network bodies leak %q: %s", secret, all)
		}
	}

	// WebSocket: lifecycle and both directions.
	var ws map[string]any
	waitFor(t, 5*time.Second, "websocket events", func() bool {
		ws = observe(t, ai, map[string]any{"what": "websocket_events"})
		return find(entries(ws), "data", "echo:hello-ws") != nil && find(entries(ws), "data", "hello-ws") != nil
	})
	if open := find(entries(ws), "event", "open"); open == nil || open["url"] != strings.Replace(site, "http", "ws", 1)+"/ws" {
		t.Errorf("ws open: %v", open)
	}
	if in := observe(t, ai, map[string]any{"what": "websocket_events", "direction": "incoming"}); len(entries(in)) != 1 {
		t.Errorf("incoming only: %v", in)
	}
	st := observe(t, ai, map[string]any{"what": "websocket_status"})
	if !strings.Contains(mustJSON(st), `"state":"open"`) || !strings.Contains(mustJSON(st), `"messages_in":1`) {
		t.Errorf("ws status: %v", st)
	}

	// Actions: the click and the typed name; never the password.
	var acts map[string]any
	waitFor(t, 5*time.Second, "actions", func() bool {
		acts = observe(t, ai, map[string]any{"what": "actions"})
		return find(entries(acts), "selector", "#go") != nil && find(entries(acts), "value", "Ada") != nil &&
			find(entries(acts), "selector", "#pw") != nil
	})
	if strings.Contains(mustJSON(acts), "hunter2") {
		t.Errorf("password value captured: %v", acts)
	}
	if c := find(entries(acts), "selector", "#go"); c["type"] != "click" || c["text"] != "Go" {
		t.Errorf("click: %v", c)
	}

	// Page: the tracked tab.
	waitFor(t, 5*time.Second, "tracked page", func() bool {
		p := observe(t, ai, map[string]any{"what": "page"})
		return p["url"] == page && p["title"] == "Gasoline capture fixture" && p["extension_connected"] == true
	})
}

func findContains(es []map[string]any, field, sub string) map[string]any {
	for _, e := range es {
		if s, ok := e[field].(string); ok && strings.Contains(s, sub) {
			return e
		}
	}
	return nil
}

func itoa(i int) string { return strconv.Itoa(i) }

// awaitConsoleLevels waits until capture.html's five console lines, one per
// level, are in the logs, and returns that answer.
func awaitConsoleLevels(t testing.TB, ai *client.Client) map[string]any {
	t.Helper()
	var logs map[string]any
	waitFor(t, 10*time.Second, "five console levels", func() bool {
		logs = observe(t, ai, map[string]any{"what": "logs", "url_filter": "capture.html"})
		for _, m := range []string{"debug-line", "log-line", "info-line", "warn-line", "error-line"} {
			if find(entries(logs), "message", m) == nil {
				return false
			}
		}
		return true
	})
	return logs
}

// TestServerTrafficIsNotCaptured: a page's requests to the Gasoline server
// itself, under another loopback name than the extension's address, are
// dropped (inject.js is told the server's hosts by the content script, which
// gates by the same list); the page's next request is captured.
func TestServerTrafficIsNotCaptured(t *testing.T) {
	r := newRig(t, "self-agent", map[string]any{})
	r.open(t, "/capture.html")
	// Its first-line error at the server: the content script has the port
	// and has told inject.js the settings.
	waitFor(t, 10*time.Second, "the page's first-line error", func() bool {
		return findContains(entries(observe(t, r.ai, map[string]any{"what": "errors"})), "message", "first-line boom") != nil
	})
	port := strconv.Itoa(r.port)
	if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`(async () => {
		for (const host of ['localhost', '127.0.0.1']) {
			try { await fetch('http://' + host + ':`+port+`/health?from=page'); } catch (_) { /* refused: a web page */ }
		}
		await fetch('/api/ok?after-self=1');
		return true; })()`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the page's next request", func() bool {
		return len(entries(observe(t, r.ai, map[string]any{"what": "network", "url_filter": "after-self=1"}))) > 0
	})
	if got := entries(observe(t, r.ai, map[string]any{"what": "network", "url_filter": "from=page"})); len(got) > 0 {
		t.Errorf("the server's own traffic was captured: %s", mustJSON(got))
	}
}
