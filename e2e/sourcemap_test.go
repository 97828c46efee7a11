//go:build e2e

package e2e

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/mcp"
)

// The fixture app (testdata/fixtures/sourcemap-app) is built here, by the
// pinned esbuild, rather than committed built: what is tested is always
// what esbuild makes of the sources as they are now.

// buildApp bundles and minifies the fixture app into a new directory:
// dist/app.js with an external map (dist/app.js.map) or an inline one.
func buildApp(t testing.TB, inline bool) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/fixtures/sourcemap-app")); err != nil {
		t.Fatal(err)
	}
	mode := "--sourcemap"
	if inline {
		mode = "--sourcemap=inline"
	}
	esbuild, _ := filepath.Abs("../node_modules/.bin/esbuild")
	cmd := exec.Command(esbuild, "src/main.ts", "--bundle", "--minify", mode, "--outfile=dist/app.js")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, out)
	}
	return dir
}

// appServer serves a built app and counts what Gasoline's server (Go's
// HTTP client) asks of it, apart from what the browser loads.
type appServer struct {
	URL string
	mu  sync.Mutex
	got map[string]int // path → requests from Gasoline
}

func serveApp(t testing.TB, dir string) *appServer {
	t.Helper()
	a := &appServer{got: map[string]int{}}
	files := http.FileServer(http.Dir(dir))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.UserAgent(), "Go-http-client") {
			a.mu.Lock()
			a.got[r.URL.Path]++
			a.mu.Unlock()
		}
		w.Header().Set("Cache-Control", "no-store")
		files.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	a.URL = "http://" + ln.Addr().String()
	return a
}

func (a *appServer) requests(path string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.got[path]
}

// throwThree makes the app throw, reject and console.error once each.
const throwThree = `(() => { app.uncaught(); app.rejection(); app.logged(); return true; })()`

// awaitThree reads observe errors for a page until its three errors are there.
func awaitThree(t testing.TB, ai mcpClient, page string, mapped bool) map[string]map[string]any {
	t.Helper()
	var res map[string]any
	by := map[string]map[string]any{}
	defer func() {
		if t.Failed() {
			t.Logf("last read: %s", mustJSON(res))
		}
	}()
	waitFor(t, 30*time.Second, "three errors from "+page, func() bool {
		res = observe(t, ai, map[string]any{"what": "errors", "url_filter": page})
		for _, e := range entries(res) {
			msg, _ := e["message"].(string)
			// Chromium: "reading 'rate'"; Firefox: "can't access property \"rate\"".
			msg = strings.NewReplacer(`property "rate"`, "reading 'rate'").Replace(msg)
			for _, key := range []string{"reading 'rate'", "price service unavailable", "total mismatch"} {
				if strings.Contains(msg, key) {
					by[key] = e
				}
			}
		}
		if len(by) != 3 {
			return false
		}
		for _, e := range by {
			if s, _ := e["stack"].(string); strings.Contains(s, "/src/") != mapped {
				return false
			}
		}
		return true
	})
	t.Logf("observe errors (%d B): %s", len(mustJSON(res)), mustJSON(res))
	return by
}

// checkMapped: each error names its original file, line and function,
// and its top frame's line text.
func checkMapped(t testing.TB, by map[string]map[string]any) {
	t.Helper()
	for key, want := range map[string]struct{ stack, code string }{
		"reading 'rate'":            {"applyCoupon /src/cart.ts:9:", "9:const rate = cart.coupons[code].rate;"},
		"price service unavailable": {"fetchPrices /src/pricing.ts:6:", `6:return Promise.reject(new Error("price service unavailable"));`},
		"total mismatch":            {"reportTotal /src/report.ts:4:", "4:console.error(new Error(`total mismatch: ${expected} != ${actual}`));"},
	} {
		e := by[key]
		stack, _ := e["stack"].(string)
		code, _ := e["code"].(string)
		// The line and one either side, numbered; indentation aside.
		lines := strings.Split(code, "\n")
		for i, l := range lines {
			n, text, _ := strings.Cut(l, ":")
			lines[i] = n + ":" + strings.TrimSpace(text)
		}
		if !strings.Contains(stack, want.stack) || len(lines) != 3 || lines[1] != want.code {
			t.Errorf("%s: stack %q code %q; want %q and %q", key, stack, code, want.stack, want.code)
		}
	}
	if s, _ := by["reading 'rate'"]["stack"].(string); !strings.Contains(s, "checkout :14:") || !strings.Contains(s, "onCheckoutClick /src/main.ts:9:") {
		t.Errorf("callers of applyCoupon: %q", s)
	}
	if s, _ := by["total mismatch"]["stack"].(string); !strings.Contains(s, "summarize :10:") {
		t.Errorf("caller of reportTotal: %q", s)
	}
}

// TestSourceMappedErrors: the esbuild fixture app's three errors, with an
// external map and with an inline one, read at their original sources; on
// an origin the human has not allowed, neither script nor map is fetched.
func TestSourceMappedErrors(t *testing.T) {
	// app.example.test stands for a public origin: Chromium reaches it by
	// its host rules, Gasoline's server through an HTTP proxy (which it
	// honours, as Go's clients do, for origins other than loopback).
	t.Setenv("HTTP_PROXY", publicNameProxy(t, "app.example.test"))
	t.Setenv("NO_PROXY", "")
	r := &rig{port: freePort(t)}
	r.ai = mcpStdio(t, r.port, "sm-agent")
	r.b = launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(r.port)),
		chromedp.Flag("host-resolver-rules", "MAP app.example.test 127.0.0.1"))
	r.b.setCapture(t, map[string]any{"log_level": "error"})

	run := func(page string) {
		t.Helper()
		if err := chromedp.Do(r.b.ctx, chromedp.Navigate(page)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 10*time.Second, "the app", func() bool {
			ok, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`!!window.app`))
			return err == nil && ok
		})
		if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](throwThree)); err != nil {
			t.Fatal(err)
		}
	}
	for _, inline := range []bool{false, true} {
		app := serveApp(t, buildApp(t, inline))
		run(app.URL + "/index.html")
		checkMapped(t, awaitThree(t, r.ai, app.URL, true))
		if want := map[bool]int{false: 1, true: 0}[inline]; app.requests("/dist/app.js.map") != want || app.requests("/dist/app.js") != 1 {
			t.Errorf("inline %v: Gasoline read %v", inline, app.got)
		}
	}

	// A public origin: the frames stay as the browser gave them, health
	// says why, and Gasoline asks the origin for nothing.
	app := serveApp(t, buildApp(t, false))
	page := strings.Replace(app.URL, "127.0.0.1", "app.example.test", 1)
	run(page + "/index.html")
	by := awaitThree(t, r.ai, page, false)
	if s, _ := by["reading 'rate'"]["stack"].(string); !strings.Contains(s, "/dist/app.js:1:") {
		t.Errorf("unmapped stack: %q", s)
	}
	h := mustJSON(observe(t, r.ai, map[string]any{"what": "health"}))
	if !strings.Contains(h, `"script":"`+page+`/dist/app.js"`) || !strings.Contains(h, "is not allowed") {
		t.Errorf("health does not say why: %s", h)
	}
	if len(app.got) != 0 {
		t.Errorf("Gasoline read from a public origin: %v", app.got)
	}

	// The AI cannot widen the list; the human can, on the options page.
	if out, isErr, err := callTool(r.ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"sourcemap_origins": page}}); err != nil || !isErr {
		t.Errorf("configure took sourcemap_origins: %v %v", out, err)
	}
	opts := r.openExtensionPage(t, "ui/options.html")
	waitFor(t, 10*time.Second, "the options form", func() bool {
		v, err := chromedp.Run(opts, chromedp.Evaluate[string](`document.getElementById('log_level').value`))
		return err == nil && v == "error"
	})
	if _, err := chromedp.Run(opts, chromedp.Evaluate[bool](`(() => {
		document.getElementById('sourcemap_origins').value = '`+page+`/';
		document.getElementById('form').requestSubmit(); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	checkMapped(t, awaitThree(t, r.ai, page, true))
	if app.requests("/dist/app.js.map") != 1 {
		t.Errorf("Gasoline read %v", app.got)
	}
}

// maxThreeErrors is the budget for the three-error fixture's observe errors
// with all three stacks: what chrome-devtools-mcp answers for two of them.
const maxThreeErrors = 611

// TestThreeErrorsDense: console.error with an Error, an unhandled rejection
// and an uncaught TypeError, each with its stack, in at most 611 bytes.
func TestThreeErrorsDense(t *testing.T) {
	r := newRig(t, "dense-agent", map[string]any{"log_level": "error"})
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/three-errors.html")); err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	waitFor(t, 30*time.Second, "three errors", func() bool {
		res = observe(t, r.ai, map[string]any{"what": "errors"})
		return len(entries(res)) == 3
	})
	body := observeText(t, r.ai, map[string]any{"what": "errors"})
	t.Logf("observe errors: %d B: %s", len(body), body)
	for _, want := range []string{"logFailure", "loadUser", "renderCart", "onTick", "start"} {
		if strings.Count(body, want+" ") < 1 {
			t.Errorf("no frame of %s: %s", want, body)
		}
	}
	for _, e := range entries(res) {
		if s, _ := e["stack"].(string); strings.Count(s, "\n") < 1 {
			t.Errorf("a stack of one frame or none: %v", e)
		}
	}
	if len(body) > maxThreeErrors {
		t.Errorf("%d B, over the %d-byte budget", len(body), maxThreeErrors)
	}
}

// observeText is observe's result text as the AI receives it.
func observeText(t testing.TB, c mcpClient, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "observe"
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("observe %v: %v %v", args, err, res)
	}
	return res.Content[0].(mcp.TextContent).Text
}

// publicNameProxy is an HTTP proxy that sends requests for name:port to
// 127.0.0.1:port.
func publicNameProxy(t testing.TB, name string) string {
	t.Helper()
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		u := *pr.In.URL
		u.Host = strings.Replace(u.Host, name, "127.0.0.1", 1)
		pr.Out.URL = &u
		pr.Out.Host = pr.In.Host
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Hostname() != name {
			http.Error(w, "not proxied", http.StatusForbidden)
			return
		}
		rp.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}
