//go:build e2e

package e2e

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gasoline-dev/gasoline/server"
)

// openExtensionPage opens one of the extension's own pages in a new tab.
func (r *rig) openExtensionPage(t testing.TB, page string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(r.b.ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate(server.ExtensionOrigin+"/"+page)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// TestPopupListsTheAIsOverrides: while the AI holds overrides the popup says
// so and lists each with the user's own value; after a reset it says nothing.
func TestPopupListsTheAIsOverrides(t *testing.T) {
	r := newRig(t, "popup-agent", map[string]any{})
	configure(t, r, map[string]any{"ws_mode": "messages", "log_level": "all"})
	popup := r.openExtensionPage(t, "ui/popup.html")
	waitFor(t, 5*time.Second, "the popup's override list", func() bool {
		got, err := chromedp.Run(popup, chromedp.Evaluate[string](`[!document.getElementById('ai').hidden,
			...[...document.querySelectorAll('#overrides li')].map(li => li.textContent)].join('|')`))
		return err == nil && got == "true|log_level: all (yours: error)|ws_mode: messages (yours: lifecycle)"
	})
	configureAfterRateLimit(t, r, "reset")
	waitFor(t, 5*time.Second, "the popup to drop the list", func() bool {
		got, err := chromedp.Run(popup, chromedp.Evaluate[bool](`document.getElementById('ai').hidden && document.getElementById('overrides').hidden`))
		return err == nil && got
	})
}

// TestOptionsPageSavesSettings: the human's settings page changes what the
// page captures, and refuses a server address that is not loopback.
func TestOptionsPageSavesSettings(t *testing.T) {
	r := newRig(t, "options-agent", map[string]any{})
	url := r.open(t, "/capture.html")
	opts := r.openExtensionPage(t, "ui/options.html")
	waitFor(t, 5*time.Second, "the options form", func() bool {
		v, err := chromedp.Run(opts, chromedp.Evaluate[string](`document.getElementById('log_level').value`))
		return err == nil && v == "error"
	})
	// A non-loopback address is refused on the page, synchronously.
	bad, err := chromedp.Run(opts, chromedp.Evaluate[string](`(() => {
		document.getElementById('server_url').value = 'http://example.com:80';
		document.getElementById('form').requestSubmit();
		return document.getElementById('status').textContent; })()`))
	if err != nil || !strings.Contains(bad, "must be http://127.0.0.1:PORT") {
		t.Fatalf("a non-loopback server address was not refused: %q %v", bad, err)
	}
	if _, err := chromedp.Run(opts, chromedp.Evaluate[bool](`(() => {
		document.getElementById('server_url').value = 'http://127.0.0.1:`+strconv.Itoa(r.port)+`';
		document.getElementById('log_level').value = 'all';
		document.getElementById('form').requestSubmit(); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "console.log to be captured after saving log_level all", func() bool {
		if err := chromedp.Do(r.b.ctx, chromedp.Evaluate[chromedp.Void](`console.log("saved-by-options")`)); err != nil {
			return false
		}
		return r.captured(t, map[string]any{"what": "logs", "url_filter": url}, "message", "saved-by-options")
	})
}

// socketlessProxy forwards everything to the server except the extension's
// socket, which it refuses, as a proxy or firewall in the way might.
func socketlessProxy(t testing.TB, port int) string {
	return proxyTo(t, port, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/ws/extension" {
			http.Error(w, "no sockets here", http.StatusNotFound)
			return false
		}
		return true
	})
}

// proxyTo serves a reverse proxy to the server on port (WebSockets too) and
// returns its URL; gate sees each request first and forwards it by
// returning true, or answers it itself.
func proxyTo(t testing.TB, port int, gate func(http.ResponseWriter, *http.Request) bool) string {
	t.Helper()
	target, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(port))
	// SetURL also sets the Host header to the target's: the server answers
	// only its own loopback Host.
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) }}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gate(w, r) {
			rp.ServeHTTP(w, r)
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// TestQueriesFallBackToPolling: with the socket refused, the worker polls
// for queries and on-demand answers still arrive.
func TestQueriesFallBackToPolling(t *testing.T) {
	port := freePort(t)
	r := &rig{port: port, ai: mcpStdio(t, port, "poll-agent"), site: fixtureServer(t)}
	r.b = launch(t, extensionFor(t, socketlessProxy(t, port)))
	r.open(t, "/dom.html")
	// The worker falls back once its socket is refused; until its first poll
	// reaches the server, the server rightly says no extension can answer.
	waitFor(t, 10*time.Second, "the worker to poll for queries (its socket refused)", func() bool {
		m, err := chromedp.Run(r.b.sw, chromedp.Evaluate[string](`String(status().queries)`))
		return err == nil && strings.Contains(m, "polling")
	})
	var res map[string]any
	waitFor(t, 10*time.Second, "an answer over polling", func() bool {
		out, isErr, err := callTool(r.ai, "analyze", map[string]any{"target": "dom", "selector": "#list > li"})
		if err != nil || (isErr && out["error"] != "extension_not_connected") {
			t.Fatalf("analyze over polling: %v %v", out, err)
		}
		res = out
		return !isErr
	})
	if res["matchCount"] != float64(60) {
		t.Fatalf("over polling: %v", res)
	}
}
