//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/extension"
	"github.com/gasoline-dev/gasoline/features/wait"
	"github.com/gasoline-dev/gasoline/server"
)

// binPath is the gasoline binary built once for every end-to-end test.
var binPath string

// testHome is the HOME of every gasoline process the tests start.
var testHome string

func TestMain(m *testing.M) {
	if missing := missingTools(); missing != "" {
		fmt.Fprintf(os.Stderr, "The end-to-end tests need %s, not found: sudo apt-get install %s (or set CHROMIUM, FIREFOX to a browser's path)\n", missing, missing)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "gasoline-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "gasoline")
	if out, err := exec.Command("go", "build", "-o", binPath, "..").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build gasoline: %v\n%s", err, out)
		os.Exit(1)
	}
	// The binaries under test keep their audit log and screenshots in a
	// home of their own, never the developer's ~/.gasoline.
	testHome = filepath.Join(dir, "home")
	os.Setenv("HOME", testHome)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// usedPorts are the ports freePort handed out in this run.
var usedPorts = struct {
	sync.Mutex
	m map[int]bool
}{m: map[int]bool{}}

// freePort finds a loopback port nothing listens on and no earlier test of
// this run had: a server keeps state per port in the shared test home (its
// capture history, the human's decisions — an origin accepted there would
// be accepted again, and a test waiting for it to ask would wait in vain).
func freePort(t testing.TB) int {
	t.Helper()
	usedPorts.Lock()
	defer usedPorts.Unlock()
	var held []net.Listener // taken ports stay held, so the kernel offers others
	defer func() {
		for _, ln := range held {
			ln.Close()
		}
	}()
	for range 1000 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, ln)
		if port := ln.Addr().(*net.TCPAddr).Port; !usedPorts.m[port] {
			usedPorts.m[port] = true
			return port
		}
	}
	t.Fatal("no loopback port this run has not used")
	return 0
}

// extensionFor writes the embedded extension, pointed at serverURL.
func extensionFor(t testing.TB, serverURL string) string {
	t.Helper()
	dir := t.TempDir()
	if err := extension.Write(dir, extension.Options{}); err != nil {
		t.Fatal(err)
	}
	pointExtension(t, dir, serverURL)
	return dir
}

// pointExtension makes the extension written in dir default to serverURL,
// as its options page would: its address module is rewritten.
func pointExtension(t testing.TB, dir, serverURL string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "sw", "address.js"), extension.AddressModule(serverURL), 0o644); err != nil {
		t.Fatal(err)
	}
}

// browser is headless Chromium with the extension loaded.
type browser struct {
	ctx      context.Context // the tab
	sw       context.Context // the extension's service worker
	swID     target.ID
	swCancel context.CancelFunc
}

func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	return "/usr/lib/chromium/chromium"
}

// startChromium starts headless Chromium on about:blank, with the unpacked
// extension in extDir loaded unless extDir is empty.
func startChromium(t testing.TB, extDir string, flags ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	ctx, cancel := openChromium(t, extDir, flags...)
	t.Cleanup(cancel)
	return ctx
}

// openChromium starts a headless Chromium with the extension in extDir
// loaded ("" for none) and a fresh profile, on about:blank; cancel ends it
// and removes the profile.
func openChromium(t testing.TB, extDir string, flags ...chromedp.ExecAllocatorOption) (ctx context.Context, cancel func()) {
	t.Helper()
	profile, err := os.MkdirTemp("", "gasoline-chromium-")
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath()),
		chromedp.Flag("headless", "new"),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
	)
	opts = append(opts, flags...)
	if extDir != "" {
		opts = append(opts,
			chromedp.Flag("disable-extensions", false),
			chromedp.Flag("load-extension", extDir),
			chromedp.Flag("disable-extensions-except", extDir),
			chromedp.Flag("disable-features", "DisableLoadExtensionCommandLineSwitch"),
		)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	cancel = func() { cancelB(); cancelA(); os.RemoveAll(profile) } // the allocator's cancel waits for the browser to exit
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		cancel()
		t.Fatalf("start chromium: %v", err)
	}
	return ctx, cancel
}

func launch(t testing.TB, extDir string, flags ...chromedp.ExecAllocatorOption) *browser {
	t.Helper()
	ctx := startChromium(t, extDir, flags...)
	// Attach to the extension's service worker once its extension APIs are
	// usable: a worker found while it is still starting may not have them.
	var (
		swID     target.ID
		sw       context.Context
		cancelSW context.CancelFunc
	)
	waitFor(t, 15*time.Second, "the extension's service worker", func() bool {
		if cancelSW != nil {
			cancelSW()
		}
		targets, err := chromedp.Targets(ctx)
		if err != nil {
			return false
		}
		for _, ti := range targets {
			if ti.Type == "service_worker" && strings.HasPrefix(ti.URL, server.ExtensionOrigin+"/") {
				swID = ti.TargetID
			}
		}
		if swID == "" {
			return false
		}
		sw, cancelSW = chromedp.NewContext(ctx, chromedp.WithTargetID(swID), chromedp.WithDetachOnCancel())
		ok, err := chromedp.Run(sw, chromedp.Evaluate[bool](`typeof chrome === "object" && !!chrome.storage && !!chrome.storage.sync`))
		return err == nil && ok
	})
	t.Cleanup(cancelSW)
	return &browser{ctx: ctx, sw: sw, swID: swID, swCancel: cancelSW}
}

// killWorker closes the extension's service worker, as Chrome does to an
// idle one, and waits until it is gone. b.sw is unusable afterwards.
func (b *browser) killWorker(t testing.TB) {
	t.Helper()
	b.swCancel()
	if _, err := cdp.Call(b.ctx, chromedp.FromContext(b.ctx).Browser, target.CloseTarget, target.CloseTargetParams{TargetID: b.swID}); err != nil {
		t.Fatalf("close worker: %v", err)
	}
	waitFor(t, 5*time.Second, "the worker to stop", func() bool {
		targets, err := chromedp.Targets(b.ctx)
		if err != nil {
			return false
		}
		for _, ti := range targets {
			if ti.TargetID == b.swID {
				return false
			}
		}
		return true
	})
}

// setCapture plays the human on the options page: it stores capture
// settings and waits until the worker has applied them.
func (b *browser) setCapture(t testing.TB, settings map[string]any) {
	t.Helper()
	store, applied := settingsScripts(settings)
	if _, err := chromedp.Run(b.sw, chromedp.Evaluate[bool](store, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("set settings: %v", err)
	}
	waitFor(t, 20*time.Second, "effective settings "+mustJSON(settings), func() bool {
		ok, err := chromedp.Run(b.sw, chromedp.Evaluate[bool](applied, chromedp.EvalAwaitPromise))
		return err == nil && ok
	})
}

// settingsScripts are what the options page does, for any extension
// context of either browser: store merges settings into the user's, and
// applied is true once the worker has them in force.
func settingsScripts(settings map[string]any) (store, applied string) {
	js := mustJSON(settings)
	store = fmt.Sprintf(`(async () => {
		const cur = (await chrome.storage.sync.get('gasoline_settings')).gasoline_settings || {};
		await chrome.storage.sync.set({gasoline_settings: Object.assign(cur, %s)});
		return true; })()`, js)
	applied = fmt.Sprintf(`(async () => {
		const e = (await chrome.storage.local.get('gasoline_effective')).gasoline_effective || {};
		const want = %s;
		return Object.keys(want).every(k => e[k] === want[k]); })()`, js)
	return store, applied
}

// pilotAreasJS reads the pilot switch from sync, local and session.
const pilotAreasJS = `(async () => [
		(await chrome.storage.sync.get('aiWebPilotEnabled')).aiWebPilotEnabled,
		(await chrome.storage.local.get('aiWebPilotEnabled')).aiWebPilotEnabled,
		(await chrome.storage.session.get('aiWebPilotEnabled')).aiWebPilotEnabled].join())()`

// waitFor is this package's eventually: it waits until cond holds, and
// fails the test after within.
func waitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	if !wait.Until(within, cond) {
		t.Fatalf("timed out after %v waiting for %s", within, what)
	}
}

// mcpStdio starts `gasoline --mcp` as an AI client would and initializes it.
func mcpStdio(t testing.TB, port int, agent string) *client.Client {
	t.Helper()
	return mcpStdioOf(t, agent, binPath, os.Environ(), "--mcp", "--port", strconv.Itoa(port))
}

// mcpStdioOf starts an MCP server over stdio, bin with env and args, as an
// AI client would, and initializes it.
func mcpStdioOf(t testing.TB, agent, bin string, env []string, args ...string) *client.Client {
	t.Helper()
	c, err := client.NewStdioMCPClient(bin, env, args...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: agent, Version: "1.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize %s: %v", agent, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// observe calls the observe tool and decodes its JSON result.
func observe(t testing.TB, c *client.Client, args map[string]any) map[string]any {
	t.Helper()
	out, isErr, err := tryObserve(c, args)
	if err != nil || isErr {
		t.Fatalf("observe %v: err=%v isError=%v %v", args, err, isErr, out)
	}
	return out
}

func tryObserve(c *client.Client, args map[string]any) (map[string]any, bool, error) {
	return callTool(c, "observe", args)
}

// callTool calls one tool and decodes its JSON result.
func callTool(c *client.Client, name string, args map[string]any) (map[string]any, bool, error) {
	text, isErr, err := callToolText(c, name, args)
	if err != nil {
		return nil, false, err
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return nil, isErr, err
	}
	return out, isErr, nil
}

// callToolText calls one tool and returns its result's first text.
func callToolText(c *client.Client, name string, args map[string]any) (string, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", false, err
	}
	return res.Content[0].(mcp.TextContent).Text, res.IsError, nil
}

// analyze calls the analyze tool and fails the test on any error.
func analyze(t testing.TB, c *client.Client, args map[string]any) map[string]any {
	t.Helper()
	out, isErr, err := callTool(c, "analyze", args)
	if err != nil || isErr {
		t.Fatalf("analyze %v: err=%v isError=%v %v", args, err, isErr, out)
	}
	return out
}

// entries returns a result's entries as objects.
func entries(res map[string]any) []map[string]any {
	raw, _ := res["entries"].([]any)
	out := make([]map[string]any, len(raw))
	for i, e := range raw {
		out[i] = e.(map[string]any)
	}
	return out
}

// find returns the first entry whose field equals value.
func find(es []map[string]any, field string, value any) map[string]any {
	for _, e := range es {
		if e[field] == value {
			return e
		}
	}
	return nil
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// clipJSON is v as JSON, at most n bytes of it, for a failure message.
func clipJSON(v any, n int) string {
	s := mustJSON(v)
	return s[:min(n, len(s))]
}

// portFree reports whether nothing listens on the loopback port.
func portFree(port int) bool {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

type mcpClient = *client.Client

// rig is what most end-to-end tests start from: `gasoline --mcp` owning a
// free port, the fixture site, and Chromium with the extension pointed at
// the server and the human's capture settings applied.
type rig struct {
	port int
	ai   mcpClient
	site string
	b    *browser
}

func newRig(t testing.TB, agent string, settings map[string]any) *rig {
	t.Helper()
	r := &rig{port: freePort(t)}
	r.ai = mcpStdio(t, r.port, agent)
	r.site = fixtureServer(t)
	r.b = launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(r.port)))
	r.b.setCapture(t, settings)
	return r
}

// contentWorld is the extension's isolated world in the tab's document (the
// one content/start.js and content.js run in), found through the Runtime
// domain: turned off and on again so that it reports the contexts there
// are, and left off (quietTab's state; chromedp's actions do without it).
func contentWorld(t testing.TB, ctx context.Context) runtime.ExecutionContextID {
	t.Helper()
	tab := chromedp.FromContext(ctx).Target
	if _, err := cdp.Call(ctx, tab, runtime.Disable, cdp.Empty{}); err != nil {
		t.Fatalf("runtime: %v", err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	created := cdp.Events(wctx, tab, runtime.ExecutionContextCreated)
	if _, err := cdp.Call(ctx, tab, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("runtime: %v", err)
	}
	var id runtime.ExecutionContextID
	for ev, err := range created {
		if err != nil {
			t.Fatalf("no content-script world: %v", err)
		}
		if ev.Context != nil && ev.Context.Name == "Gasoline" {
			id = ev.Context.ID
			break
		}
	}
	if _, err := cdp.Call(ctx, tab, runtime.Disable, cdp.Empty{}); err != nil {
		t.Fatalf("runtime: %v", err)
	}
	return id
}

// inWorld reports whether expr is true in the execution context id of the
// tab's document.
func inWorld(ctx context.Context, id runtime.ExecutionContextID, expr string) bool {
	r, err := cdp.Call(ctx, chromedp.FromContext(ctx).Target, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: id, ReturnByValue: new(true),
	})
	return err == nil && r.Result != nil && string(r.Result.Value) == "true"
}

// keepWorkerBusy keeps the extension's service worker busy from its next
// task on until release (at most two minutes), so it answers nothing
// meanwhile (no message, no content-script run): the condition some tests
// need, held for as long as the test takes to observe it, however slow the
// machine. release ends the busy task (Runtime.terminateExecution) and waits
// until the worker answers again; the test's cleanup calls it too.
func (b *browser) keepWorkerBusy(t testing.TB) (release func()) {
	t.Helper()
	if _, err := chromedp.Run(b.sw, chromedp.Evaluate[bool](
		`setTimeout(() => { const end = Date.now() + 120000; while (Date.now() < end) {} }, 0); true`)); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		t.Helper()
		if released {
			return
		}
		released = true
		sw := chromedp.FromContext(b.sw).Target
		waitFor(t, 30*time.Second, "the worker to answer once released", func() bool {
			if _, err := cdp.Call(b.sw, sw, runtime.TerminateExecution, cdp.Empty{}); err != nil {
				return false
			}
			ctx, cancel := context.WithTimeout(b.sw, 2*time.Second)
			defer cancel()
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`true`))
			return err == nil && ok
		})
	}
	t.Cleanup(release)
	return release
}

// refuseFirstInjection, for interceptInjections, refuses the worker's first
// injection, as one is missed when the worker was not running at a load.
const refuseFirstInjection = `(o, run) => {
	globalThis.__refused = globalThis.__refused || 0;
	if (globalThis.__refused === 0) {
		globalThis.__refused++;
		return Promise.reject(new Error('refused by the test'));
	}
	return run(o);
}`

// interceptInjections puts fn, JavaScript `(o, run) => Promise`, in place of
// the worker's chrome.scripting.executeScript: it gets each call's options
// and the real function, and may refuse the call, change it or run it. The
// worker reads chrome.scripting.executeScript at each call, so this takes
// effect at once; tests use it to make the worker's injections fail or come
// short.
func (b *browser) interceptInjections(t testing.TB, fn string) {
	t.Helper()
	js := `(() => {
		const run = chrome.scripting.executeScript.bind(chrome.scripting);
		const fn = ` + fn + `;
		chrome.scripting.executeScript = (o) => fn(o, run);
		return true;
	})()`
	if _, err := chromedp.Run(b.sw, chromedp.Evaluate[bool](js)); err != nil {
		t.Fatalf("intercept the worker's injections: %v", err)
	}
}
