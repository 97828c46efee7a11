//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gasoline-dev/gasoline/server"
)

// setPilot plays the human: it opens the real popup, clicks the AI Web
// Pilot toggle until it shows on (or off), and waits for the server to know.
func (r *rig) setPilot(t testing.TB, on bool) {
	t.Helper()
	popup, cancel := chromedp.NewContext(r.b.ctx)
	defer cancel()
	if err := chromedp.Do(popup, chromedp.Navigate(server.ExtensionOrigin+"/ui/popup.html")); err != nil {
		t.Fatal(err)
	}
	// The switch is enabled once the worker told the popup its state.
	waitFor(t, 5*time.Second, "the popup's pilot toggle", func() bool {
		ok, err := chromedp.Run(popup, chromedp.Evaluate[bool](`document.querySelector('#pilot')?.disabled === false`))
		return err == nil && ok
	})
	state := func() bool {
		v, _ := chromedp.Run(popup, chromedp.Evaluate[bool](`document.querySelector('#pilot').checked`))
		return v
	}
	if state() != on {
		if err := chromedp.Do(popup, chromedp.Click(chromedp.CSS("#pilot"))); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 5*time.Second, fmt.Sprintf("the server to see the pilot %v", on), func() bool {
		st := observe(t, r.ai, map[string]any{"what": "pilot"})
		return st["enabled"] == on && st["source"] == "extension_poll" && state() == on
	})
}

func interact(t testing.TB, r *rig, args map[string]any) (map[string]any, bool) {
	t.Helper()
	out, isErr, err := callTool(r.ai, "interact", args)
	if err != nil {
		t.Fatalf("interact %v: %v", args, err)
	}
	return out, isErr
}

// Pilot spec scenario 1: every action is refused while the switch is off.
func TestPilotOptIn(t *testing.T) {
	r := newRig(t, "pilot-agent", map[string]any{})
	r.open(t, "/pilot.html")
	if st := observe(t, r.ai, map[string]any{"what": "pilot"}); st["enabled"] != false {
		t.Fatalf("pilot on by default: %v", st)
	}
	for _, a := range []map[string]any{
		{"action": "highlight", "selector": "#go"}, {"action": "save_state", "snapshot_name": "s"},
		{"action": "load_state", "snapshot_name": "s"}, {"action": "list_states"},
		{"action": "delete_state", "snapshot_name": "s"}, {"action": "execute_js", "script": "1 + 1"},
	} {
		out, isErr := interact(t, r, a)
		if !isErr || out["error"] != "ai_web_pilot_disabled" || out["message"] != "Enable 'AI Web Pilot' in extension popup to use this tool" {
			t.Errorf("%v: %v", a["action"], out)
		}
	}
	r.setPilot(t, true)
	// ADR: the flip is written to sync, local and session alike.
	areas, err := chromedp.Run(r.b.sw, chromedp.Evaluate[string](pilotAreasJS, chromedp.EvalAwaitPromise))
	if err != nil || areas != "true,true,true" {
		t.Fatalf("storage areas after the flip: %q %v", areas, err)
	}
	if _, isErr := interact(t, r, map[string]any{"action": "execute_js", "script": "1 + 1"}); isErr {
		t.Fatal("refused after the human enabled the pilot")
	}
	r.setPilot(t, false)
	if out, _ := interact(t, r, map[string]any{"action": "execute_js", "script": "1 + 1"}); out["error"] != "ai_web_pilot_disabled" {
		t.Fatalf("after switching off: %v", out)
	}
}

// Scenario 2: the highlighter appears on the element and goes away.
func TestPilotHighlight(t *testing.T) {
	r := newRig(t, "pilot-agent", map[string]any{})
	r.open(t, "/pilot.html")
	r.setPilot(t, true)
	out, isErr := interact(t, r, map[string]any{"action": "highlight", "selector": "#go", "duration_ms": 800})
	if isErr || out["success"] != true {
		t.Fatalf("highlight: %v", out)
	}
	b := out["bounds"].(map[string]any)
	if b["x"] != float64(40) || b["y"] != float64(120) || b["width"] != float64(100) || b["height"] != float64(30) {
		t.Fatalf("bounds: %v", b)
	}
	style, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[map[string]string](`(() => {
		const d = document.getElementById('gasoline-highlighter'); if (!d) return null;
		const s = getComputedStyle(d);
		return {position: s.position, border: s.borderTopWidth + ' ' + s.borderTopStyle + ' ' + s.borderTopColor,
			z: s.zIndex, events: s.pointerEvents, left: s.left, top: s.top}; })()`))
	if err != nil || style["position"] != "fixed" || style["border"] != "4px solid rgb(255, 0, 0)" ||
		style["z"] != "2147483647" || style["events"] != "none" {
		t.Fatalf("highlighter: %v %v", style, err)
	}
	waitFor(t, 5*time.Second, "the highlighter to go", func() bool {
		gone, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`!document.getElementById('gasoline-highlighter')`))
		return err == nil && gone
	})
	if out, _ := interact(t, r, map[string]any{"action": "highlight", "selector": "#nope"}); out["error"] != "not_found" {
		t.Fatalf("missing element: %v", out)
	}
}

// Scenario 3 and the httpOnly cookie: save, clear, load, all restored.
func TestPilotStateRoundTrip(t *testing.T) {
	r := newRig(t, "pilot-agent", map[string]any{})
	r.open(t, "/pilot.html")
	r.setPilot(t, true)
	r.eval(t, `localStorage.setItem("theme", "dark"); localStorage.setItem("cart", "[1,2]");
		sessionStorage.setItem("step", "3"); document.cookie = "visible=yes; path=/"`)
	cookies := func() string {
		v, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[string](`fetch("/api/cookies").then(r => r.text())`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	r.eval(t, `fetch("/api/login")`)
	waitFor(t, 5*time.Second, "the httpOnly cookie", func() bool { return strings.Contains(cookies(), "sid=server-secret") })

	saved, isErr := interact(t, r, map[string]any{"action": "save_state", "snapshot_name": "cart_full"})
	counts := mustJSON(saved["saved"])
	if isErr || saved["success"] != true || counts != `{"cookies":2,"localStorage":2,"sessionStorage":1}` {
		t.Fatalf("save: %v", saved)
	}
	list, _ := interact(t, r, map[string]any{"action": "list_states"})
	if !strings.Contains(mustJSON(list), `"name":"cart_full"`) || !strings.Contains(mustJSON(list), "pilot.html") {
		t.Fatalf("list: %v", list)
	}

	// Wipe everything, the httpOnly cookie included, from outside the page.
	r.eval(t, `localStorage.clear(); sessionStorage.clear(); localStorage.setItem("junk", "1"); document.cookie = "visible=; max-age=0; path=/"`)
	if _, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](`chrome.cookies.remove({url: "`+r.site+`/", name: "sid"}).then(() => true)`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(cookies(), "sid=") {
		t.Fatal("cookie not cleared")
	}

	// include_url: load_state reloads the page where it was. The old
	// document carries a mark the reloaded one lacks; navigating here too
	// would race that reload.
	r.eval(t, `window.__beforeLoadState = true`)
	loaded, isErr := interact(t, r, map[string]any{"action": "load_state", "snapshot_name": "cart_full"})
	if isErr || mustJSON(loaded["restored"]) != `{"cookies":2,"localStorage":2,"sessionStorage":1}` || loaded["url"] != r.site+"/pilot.html" {
		t.Fatalf("load: %v", loaded)
	}
	waitFor(t, 10*time.Second, "the page reloaded by load_state", func() bool {
		fresh, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`!window.__beforeLoadState && document.readyState === "complete" && location.pathname === "/pilot.html"`))
		return err == nil && fresh
	})
	got, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[string](`[localStorage.getItem("theme"), localStorage.getItem("cart"),
		localStorage.getItem("junk"), sessionStorage.getItem("step")].join("|")`))
	if err != nil || got != "dark|[1,2]||3" {
		t.Fatalf("storage after load: %q %v", got, err)
	}
	if c := cookies(); !strings.Contains(c, "sid=server-secret") || !strings.Contains(c, "visible=yes") {
		t.Fatalf("cookies after load: %q", c)
	}
	if out, _ := interact(t, r, map[string]any{"action": "delete_state", "snapshot_name": "cart_full"}); out["success"] != true {
		t.Fatalf("delete: %v", out)
	}
	if out, _ := interact(t, r, map[string]any{"action": "load_state", "snapshot_name": "cart_full"}); out["error"] != "not_found" {
		t.Fatalf("load deleted: %v", out)
	}
}

// Scenarios 4–6 and the CSP page.
func TestPilotExecuteJS(t *testing.T) {
	r := newRig(t, "pilot-agent", map[string]any{})
	r.open(t, "/pilot.html")
	r.setPilot(t, true)

	if out, isErr := interact(t, r, map[string]any{"action": "execute_js", "script": "1 + 1"}); isErr || out["result"] != float64(2) {
		t.Fatalf("1 + 1: %v", out)
	}
	if out, _ := interact(t, r, map[string]any{"action": "execute_js", "script": "window.appState"}); mustJSON(out["result"]) != `{"items":[1,2,3],"user":"ada"}` {
		t.Fatalf("page state: %v", out)
	}
	out, isErr := interact(t, r, map[string]any{"action": "execute_js", "script": "throw new Error('test')"})
	if !isErr || out["error"] != "script_error" || !strings.Contains(out["message"].(string), "test") || !strings.Contains(out["message"].(string), "at ") {
		t.Fatalf("throw: %v", out)
	}
	t0 := time.Now()
	out, isErr = interact(t, r, map[string]any{"action": "execute_js", "script": "while(true){}", "timeout_ms": 1000})
	if !isErr || out["error"] != "timeout" {
		t.Fatalf("infinite loop: %v", out)
	}
	t.Logf("while(true) ended after %v", time.Since(t0).Round(time.Millisecond))
	title, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[string](`document.title`))
	if err != nil || title != "Pilot fixture" {
		t.Fatalf("page unusable after the loop: %q %v", title, err)
	}
	if out, isErr := interact(t, r, map[string]any{"action": "execute_js", "script": "document.title"}); isErr || out["result"] != "Pilot fixture" {
		t.Fatalf("after loop: %v", out)
	}

	r.open(t, "/csp.html")
	t0 = time.Now()
	out, isErr = interact(t, r, map[string]any{"action": "execute_js", "script": "document.querySelector('h1').textContent"})
	// Through chrome.debugger the page's CSP does not apply; where it would,
	// the answer is csp_blocked at once. Either way: no hang.
	// A hang would end in timeout.
	if (isErr && out["error"] != "csp_blocked") || (!isErr && out["result"] != "strict") {
		t.Fatalf("CSP page: %v after %v", out, time.Since(t0))
	}
}

// The server is told the pilot is on by a forged poll; the extension still
// refuses, because its own switch is off.
func TestForgedPilotReportEnablesNothing(t *testing.T) {
	r := newRig(t, "pilot-agent", map[string]any{})
	r.open(t, "/pilot.html")
	req, _ := http.NewRequest("GET", "http://127.0.0.1:"+strconv.Itoa(r.port)+"/settings?pilot=true", nil)
	req.Header.Set("Origin", server.ExtensionOrigin) // a local process can forge the header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// Precondition: the server believes it, so only the extension can refuse.
	if st := observe(t, r.ai, map[string]any{"what": "pilot"}); st["enabled"] != true {
		t.Fatalf("the forged report did not reach the server, so this test proves nothing: %v", st)
	}
	out, _ := interact(t, r, map[string]any{"action": "execute_js", "script": "document.cookie"})
	if out["error"] != "ai_web_pilot_disabled" {
		t.Fatalf("the extension acted without its switch: %v", out)
	}
}

// ADR: on worker start, sync wins over local and session.
func TestPilotStorageReconciliation(t *testing.T) {
	r := newRig(t, "pilot-agent", map[string]any{})
	r.open(t, "/pilot.html")
	if _, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](`(async () => {
		await chrome.storage.sync.set({aiWebPilotEnabled: true});
		await chrome.storage.local.set({aiWebPilotEnabled: false});
		await chrome.storage.session.set({aiWebPilotEnabled: false});
		return true; })()`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	r.b.killWorker(t)
	r.eval(t, `console.error("wake the worker")`)
	waitFor(t, 10*time.Second, "the restarted worker to report the synced pilot", func() bool {
		return observe(t, r.ai, map[string]any{"what": "pilot"})["enabled"] == true
	})
}
