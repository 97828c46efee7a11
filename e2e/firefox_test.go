//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/extension"
	"github.com/gasoline-dev/gasoline/features/wait"
)

// ffUUID pins the Firefox build's moz-extension://<uuid> origin in the test
// profile, so a test can open the extension's own pages. A real install's
// uuid is random: the server cannot know it in advance.
const ffUUID = "6f1d3c2a-9b7e-4c55-8a10-3d2f0e4b7c91"

// ffOrigin is the extension's origin in the test profile.
const ffOrigin = "moz-extension://" + ffUUID

// firefoxPath is Debian's Firefox ESR, or $FIREFOX.
func firefoxPath(t testing.TB) string {
	if p := os.Getenv("FIREFOX"); p != "" {
		return p
	}
	p, err := exec.LookPath("firefox-esr")
	if err != nil {
		t.Fatal("firefox-esr is not installed: sudo apt-get install firefox-esr")
	}
	return p
}

// lockedBuffer collects a process's output for a failure message.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 1<<20 {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fox is headless Firefox ESR with the Firefox build of the extension,
// driven over WebDriver BiDi.
type fox struct {
	bd  *bidi
	tab string // the top-level browsing context
	out *lockedBuffer
}

// firefoxExtension writes the Firefox build, pointed at serverURL.
func firefoxExtension(t testing.TB, serverURL string) string {
	t.Helper()
	dir := t.TempDir()
	if err := extension.Write(dir, extension.Options{Browser: "firefox"}); err != nil {
		t.Fatal(err)
	}
	pointExtension(t, dir, serverURL)
	return dir
}

// launchFirefox starts headless Firefox ESR and installs the unpacked
// extension in extDir as a temporary add-on, as about:debugging would.
func launchFirefox(t testing.TB, extDir string) *fox {
	t.Helper()
	bin := firefoxPath(t)
	profile := t.TempDir()
	uuids, _ := json.Marshal(map[string]string{extension.GeckoID: ffUUID})
	prefs := fmt.Sprintf("user_pref(\"extensions.webextensions.uuids\", %s);\n", strconv.Quote(string(uuids))) +
		"user_pref(\"browser.dom.window.dump.enabled\", true);\n"
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(prefs), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	out := &lockedBuffer{}
	cmd := exec.Command(bin, "--headless", "--remote-debugging-port", strconv.Itoa(port), "--profile", profile, "--no-remote",
		// BiDi may not navigate a tab to moz-extension://: the tests open the
		// extension's pages from the browser window's own (chrome) realm.
		"--remote-allow-system-access")
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start firefox: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	var bd *bidi
	var lastErr error
	defer func() {
		if bd == nil {
			t.Logf("last BiDi error: %v\n%s", lastErr, out)
		}
	}()
	waitFor(t, 30*time.Second, "Firefox's WebDriver BiDi endpoint", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		bd, err = dialBiDi(ctx, fmt.Sprintf("ws://127.0.0.1:%d/session", port))
		lastErr = err
		return err == nil
	})
	t.Cleanup(bd.close)
	f := &fox{bd: bd, out: out}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := bd.newSession(ctx); err != nil {
		t.Fatalf("BiDi session: %v\n%s", err, out)
	}
	if _, err := bd.call(ctx, "webExtension.install", map[string]any{
		"extensionData": map[string]any{"type": "path", "path": extDir}}); err != nil {
		t.Fatalf("install the extension: %v\n%s", err, out)
	}
	raw, err := bd.call(ctx, "browsingContext.getTree", map[string]any{"maxDepth": 0})
	if err != nil {
		t.Fatal(err)
	}
	var tree struct {
		Contexts []struct {
			Context string `json:"context"`
		} `json:"contexts"`
	}
	if err := json.Unmarshal(raw, &tree); err != nil || len(tree.Contexts) == 0 {
		t.Fatalf("no browsing context: %s %v", raw, err)
	}
	f.tab = tree.Contexts[0].Context
	return f
}

// navigate loads url in browsing context ctxID and waits for its load event.
func (f *fox) navigate(t testing.TB, ctxID, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := f.bd.call(ctx, "browsingContext.navigate", map[string]any{"context": ctxID, "url": url, "wait": "complete"}); err != nil {
		t.Fatalf("navigate %s: %v\n%s", url, err, f.out)
	}
}

// eval runs expression in browsing context ctxID's page realm.
func (f *fox) eval(ctxID, expression string) (any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return f.bd.evaluate(ctx, ctxID, expression)
}

// chromeWindow is the browser window's own browsing context (needs
// --remote-allow-system-access).
func (f *fox) chromeWindow(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := f.bd.call(ctx, "browsingContext.getTree", map[string]any{"moz:scope": "chrome", "maxDepth": 0})
	if err != nil {
		t.Fatal(err)
	}
	var tree struct{ Contexts []struct{ Context string } }
	if err := json.Unmarshal(raw, &tree); err != nil || len(tree.Contexts) == 0 {
		t.Fatalf("no browser window: %s %v", raw, err)
	}
	return tree.Contexts[0].Context
}

// openExtensionPage opens one of the extension's own pages in a new tab,
// as the user would from the toolbar, and returns its browsing context
// once the page's script can talk to the extension.
func (f *fox) openExtensionPage(t testing.TB, page string) string {
	t.Helper()
	url := ffOrigin + "/" + page
	if _, err := f.eval(f.chromeWindow(t), `(() => { gBrowser.selectedTab = gBrowser.addTab(`+strconv.Quote(url)+
		`, {triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal()}); return true; })()`); err != nil {
		t.Fatalf("open %s: %v", page, err)
	}
	var id string
	waitFor(t, 10*time.Second, "the extension's "+page, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		raw, err := f.bd.call(ctx, "browsingContext.getTree", map[string]any{"maxDepth": 0})
		if err != nil {
			return false
		}
		var tree struct {
			Contexts []struct{ Context, URL string }
		}
		json.Unmarshal(raw, &tree)
		for _, c := range tree.Contexts {
			if c.URL == url {
				id = c.Context
			}
		}
		if id == "" {
			return false
		}
		ok, err := f.eval(id, `document.readyState === 'complete' && typeof chrome === 'object' && !!chrome.runtime`)
		return err == nil && ok == true
	})
	return id
}

// closeTab closes a tab opened by openExtensionPage or newTab.
func (f *fox) closeTab(t testing.TB, ctxID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := f.bd.call(ctx, "browsingContext.close", map[string]any{"context": ctxID}); err != nil {
		t.Fatalf("close tab: %v", err)
	}
}

// click clicks the centre of the element selector matches in ctxID with
// the mouse, as the user would (trusted events).
func (f *fox) click(t testing.TB, ctxID, selector string) {
	t.Helper()
	v, err := f.eval(ctxID, `(() => { const e = document.querySelector(`+strconv.Quote(selector)+`); if (!e) return null;
		e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();
		return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]; })()`)
	xy, _ := v.([]any)
	if err != nil || len(xy) != 2 {
		t.Fatalf("click %s: no element (%v %v)", selector, v, err)
	}
	f.act(t, ctxID, map[string]any{"type": "pointer", "id": "mouse", "actions": []map[string]any{
		{"type": "pointerMove", "x": int(xy[0].(float64)), "y": int(xy[1].(float64))},
		{"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0},
	}})
}

// typeText types text with the keyboard into whatever has the focus.
func (f *fox) typeText(t testing.TB, ctxID, text string) {
	t.Helper()
	var keys []map[string]any
	for _, r := range text {
		keys = append(keys, map[string]any{"type": "keyDown", "value": string(r)}, map[string]any{"type": "keyUp", "value": string(r)})
	}
	f.act(t, ctxID, map[string]any{"type": "key", "id": "keyboard", "actions": keys})
}

func (f *fox) act(t testing.TB, ctxID string, source map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := f.bd.call(ctx, "input.performActions", map[string]any{"context": ctxID, "actions": []any{source}}); err != nil {
		t.Fatalf("input: %v", err)
	}
}

// setCapture plays the human on the options page's storage, as the Chrome
// rig does, and waits until the background script applied the settings.
func (f *fox) setCapture(t testing.TB, settings map[string]any) {
	t.Helper()
	page := f.openExtensionPage(t, "ui/options.html")
	defer f.closeTab(t, page) // the page's tab must be the active one again
	store, applied := settingsScripts(settings)
	if _, err := f.eval(page, store); err != nil {
		t.Fatalf("set settings: %v", err)
	}
	waitFor(t, 20*time.Second, "effective settings "+mustJSON(settings), func() bool {
		ok, err := f.eval(page, applied)
		return err == nil && ok == true
	})
}

// foxRig is the Firefox twin of rig: `gasoline --mcp` owning a free port,
// the fixture site, and Firefox with the Firefox build pointed at the
// server, its origin accepted by the human and the capture settings set.
type foxRig struct {
	port int
	ai   mcpClient
	site string
	f    *fox
}

func newFoxRig(t testing.TB, agent string, settings map[string]any) *foxRig {
	t.Helper()
	firefoxPath(t)
	r := &foxRig{port: freePort(t)}
	r.ai = mcpStdio(t, r.port, agent)
	r.site = fixtureServer(t)
	r.f = launchFirefox(t, firefoxExtension(t, "http://127.0.0.1:"+strconv.Itoa(r.port)))
	// The extension's dump() and the browser's own messages, for a failure's log.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Firefox's output:\n%s", r.f.out.String())
		}
	})
	r.acceptOrigin(t)
	r.f.setCapture(t, settings)
	return r
}

// addonState is what the browser says of the extension: whether it is
// installed and active, and its background script's state.
func (f *fox) addonState(t testing.TB) string {
	v, err := f.eval(f.chromeWindow(t), `(() => { const p = WebExtensionPolicy.getByID(`+strconv.Quote(extension.GeckoID)+`);
		if (!p) return 'not installed';
		const e = p.extension;
		return JSON.stringify({active: p.active, background: e && e.backgroundState}); })()`)
	if err != nil {
		return "unknown: " + err.Error()
	}
	return fmt.Sprint(v)
}

// pendingOrigins is what GET /api/origins lists as waiting for the human.
func (r *foxRig) pendingOrigins(t testing.TB) []map[string]any {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(r.port) + "/api/origins")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct{ Pending []map[string]any }
	json.NewDecoder(resp.Body).Decode(&v)
	return v.Pending
}

// acceptOrigin waits for the extension's origin to ask, then accepts it
// as the human does from the dashboard (the token-protected call the
// dashboard's a key makes), and waits for the extension to connect.
func (r *foxRig) acceptOrigin(t testing.TB) {
	t.Helper()
	var p []map[string]any
	if !wait.Until(15*time.Second, func() bool {
		p = r.pendingOrigins(t)
		return len(p) == 1 && p[0]["origin"] == ffOrigin
	}) {
		t.Fatalf("timed out after 15s waiting for the extension's origin to wait for the human: pending %v, the add-on %s", p, r.f.addonState(t))
	}
	resp, err := humanPost(t, r.port, "/api/origins/answer", `{"origin":"`+ffOrigin+`","accept":true}`)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("accept the origin: %v %v", resp, err)
	}
	resp.Body.Close()
	waitFor(t, 15*time.Second, "the Firefox extension to connect", func() bool {
		return observe(t, r.ai, map[string]any{"what": "page"})["extension_connected"] == true
	})
}

// open navigates the tab and waits until the extension tracks it.
func (r *foxRig) open(t testing.TB, path string) string {
	t.Helper()
	url := r.site + path
	r.f.navigate(t, r.f.tab, url)
	waitFor(t, 10*time.Second, "the tracked page "+path, func() bool {
		return observe(t, r.ai, map[string]any{"what": "page"})["url"] == url
	})
	return url
}
