//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// setPilot plays the human in Firefox: it opens the real popup page,
// clicks the AI Web Pilot toggle with the mouse until it shows on (or
// off), and waits for the server to know.
func (r *foxRig) setPilot(t testing.TB, on bool) {
	t.Helper()
	popup := r.f.openExtensionPage(t, "ui/popup.html")
	defer r.f.closeTab(t, popup)
	// The switch is enabled once the worker told the popup its state.
	waitFor(t, 5*time.Second, "the popup's pilot toggle", func() bool {
		v, err := r.f.eval(popup, `document.querySelector('#pilot')?.disabled === false`)
		return err == nil && v == true
	})
	state := func() bool {
		v, _ := r.f.eval(popup, `document.querySelector('#pilot').checked`)
		return v == true
	}
	if state() != on {
		r.f.click(t, popup, "#pilot")
	}
	waitFor(t, 5*time.Second, fmt.Sprintf("the server to see the pilot %v", on), func() bool {
		return observe(t, r.ai, map[string]any{"what": "pilot"})["enabled"] == on && state() == on
	})
}

func (r *foxRig) interact(t testing.TB, args map[string]any) (map[string]any, bool) {
	t.Helper()
	out, isErr, err := callTool(r.ai, "interact", args)
	if err != nil {
		t.Fatalf("interact %v: %v", args, err)
	}
	return out, isErr
}

// TestFirefoxQueries: a DOM query, page info and an axe-core audit through
// MCP, answered by the Firefox build.
func TestFirefoxQueries(t *testing.T) {
	r := newFoxRig(t, "ff-dom-agent", map[string]any{})
	url := r.open(t, "/dom.html")
	list := analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#list > li"})
	if list["matchCount"] != float64(60) || list["returnedCount"] != float64(50) || list["url"] != url || list["title"] != "DOM fixture" {
		t.Fatalf("list: %.400s", mustJSON(list))
	}
	first := matches(list)[0]
	if first["tag"] != "li" || first["text"] != "Item 0 open" || first["visible"] != true {
		t.Errorf("first item: %v", first)
	}
	box := matches(analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#box", "include_styles": true}))[0]
	if st := box["styles"].(map[string]any); st["display"] != "flex" || st["color"] != "rgb(255, 0, 0)" {
		t.Errorf("styles: %v", st)
	}
	out, isErr, err := callTool(r.ai, "analyze", map[string]any{"target": "dom", "selector": "li[["})
	if err != nil || !isErr || out["error"] != "invalid_param" {
		t.Errorf("invalid selector: %v %v", err, out)
	}
	info := analyze(t, r.ai, map[string]any{"target": "page_info"})
	if info["url"] != url || info["links"] != float64(60) || info["interactiveElements"] != float64(64) {
		t.Errorf("page info: %v", info)
	}

	r.open(t, "/a11y.html")
	audit := analyze(t, r.ai, map[string]any{"target": "accessibility"})
	wantPlantedViolations(t, audit)
}

// TestFirefoxCaptureControl: an AI override changes what the open page
// captures, and the popup lists it beside the user's own value.
func TestFirefoxCaptureControl(t *testing.T) {
	r := newFoxRig(t, "ff-control-agent", map[string]any{}) // the user's defaults: errors only
	url := r.open(t, "/capture.html")
	if out, isErr, err := callTool(r.ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"log_level": "all"}}); err != nil || isErr {
		t.Fatalf("configure: %v %v", err, out)
	}
	waitFor(t, 5*time.Second, "console.log to be captured under the AI's override", func() bool {
		if _, err := r.f.eval(r.f.tab, `console.log("ff-override-probe")`); err != nil {
			return false
		}
		return find(entries(observe(t, r.ai, map[string]any{"what": "logs", "url_filter": url})), "message", "ff-override-probe") != nil
	})
	popup := r.f.openExtensionPage(t, "ui/popup.html")
	defer r.f.closeTab(t, popup)
	waitFor(t, 5*time.Second, "the popup's override list", func() bool {
		got, err := r.f.eval(popup, `[!document.getElementById('ai').hidden,
			...[...document.querySelectorAll('#overrides li')].map(li => li.textContent)].join('|')`)
		return err == nil && got == "true|log_level: all (yours: error)"
	})
}

// TestFirefoxPilot: the switch refuses highlight until the human turns it
// on in the popup, then highlight, state snapshots and execute_js (in the
// page's main world, csp_blocked at once where the page forbids eval) run;
// off again refuses again.
func TestFirefoxPilot(t *testing.T) {
	r := newFoxRig(t, "ff-pilot-agent", map[string]any{})
	r.open(t, "/pilot.html")
	hl := map[string]any{"action": "highlight", "selector": "#go", "duration_ms": 800}
	if out, isErr := r.interact(t, hl); !isErr || out["error"] != "ai_web_pilot_disabled" {
		t.Fatalf("highlight with the switch off: %v", out)
	}
	r.setPilot(t, true)
	// The flip is written to sync, local and session alike (read from an extension page).
	opts := r.f.openExtensionPage(t, "ui/options.html")
	areas, err := r.f.eval(opts, pilotAreasJS)
	if err != nil || areas != "true,true,true" {
		t.Fatalf("storage areas after the flip: %v %v", areas, err)
	}
	r.f.closeTab(t, opts)
	out, isErr := r.interact(t, hl)
	if isErr || out["success"] != true {
		t.Fatalf("highlight: %v", out)
	}
	if b := out["bounds"].(map[string]any); b["x"] != float64(40) || b["y"] != float64(120) || b["width"] != float64(100) {
		t.Errorf("bounds: %v", b)
	}
	if on, err := r.f.eval(r.f.tab, `getComputedStyle(document.getElementById('gasoline-highlighter')).position`); err != nil || on != "fixed" {
		t.Errorf("highlighter: %v %v", on, err)
	}
	waitFor(t, 5*time.Second, "the highlighter to go", func() bool {
		gone, err := r.f.eval(r.f.tab, `!document.getElementById('gasoline-highlighter')`)
		return err == nil && gone == true
	})

	// State snapshots: save, wipe, load (which reloads the page where it was).
	if _, err := r.f.eval(r.f.tab, `localStorage.setItem("theme", "dark"); sessionStorage.setItem("step", "3")`); err != nil {
		t.Fatal(err)
	}
	if out, isErr := r.interact(t, map[string]any{"action": "save_state", "snapshot_name": "ff"}); isErr || mustJSON(out["saved"]) != `{"cookies":0,"localStorage":1,"sessionStorage":1}` {
		t.Fatalf("save_state: %v", out)
	}
	if list, _ := r.interact(t, map[string]any{"action": "list_states"}); !strings.Contains(mustJSON(list), `"name":"ff"`) {
		t.Errorf("list_states: %v", list)
	}
	if _, err := r.f.eval(r.f.tab, `localStorage.clear(); sessionStorage.clear(); localStorage.setItem("junk", "1"); window.__beforeLoadState = true`); err != nil {
		t.Fatal(err)
	}
	if out, isErr := r.interact(t, map[string]any{"action": "load_state", "snapshot_name": "ff"}); isErr || mustJSON(out["restored"]) != `{"cookies":0,"localStorage":1,"sessionStorage":1}` {
		t.Fatalf("load_state: %v", out)
	}
	waitFor(t, 10*time.Second, "the page reloaded by load_state with its storage back", func() bool {
		got, err := r.f.eval(r.f.tab, `!window.__beforeLoadState && document.readyState === "complete" ?
			[localStorage.getItem("theme"), localStorage.getItem("junk"), sessionStorage.getItem("step")].join("|") : ""`)
		return err == nil && got == "dark||3"
	})

	if out, isErr := r.interact(t, map[string]any{"action": "execute_js", "script": "1 + 1"}); isErr || out["result"] != float64(2) {
		t.Errorf("execute_js 1 + 1: %v", out)
	}
	if out, _ := r.interact(t, map[string]any{"action": "execute_js", "script": "window.appState"}); mustJSON(out["result"]) != `{"items":[1,2,3],"user":"ada"}` {
		t.Errorf("execute_js appState: %v", out)
	}
	if out, isErr := r.interact(t, map[string]any{"action": "execute_js", "script": "const a = 20; return a + 1"}); isErr || out["result"] != float64(21) {
		t.Errorf("execute_js statements: %v", out)
	}
	if out, isErr := r.interact(t, map[string]any{"action": "execute_js", "script": "throw new Error('ff-test')"}); !isErr || out["error"] != "script_error" {
		t.Errorf("execute_js throw: %v", out)
	}
	// An async script that never settles is ended at its timeout.
	if out, isErr := r.interact(t, map[string]any{"action": "execute_js", "script": "new Promise(() => {})", "timeout_ms": 1000}); !isErr || out["error"] != "timeout" {
		t.Errorf("execute_js hang: %v", out)
	}
	r.open(t, "/csp.html")
	t0 := time.Now()
	out, isErr = r.interact(t, map[string]any{"action": "execute_js", "script": "document.querySelector('h1').textContent"})
	if !isErr || out["error"] != "csp_blocked" {
		t.Errorf("execute_js under a CSP without eval: %v", out)
	}
	t.Logf("csp_blocked after %v", time.Since(t0))
	// A synchronous endless loop cannot be stopped without chrome.debugger,
	// but the AI still gets its answer at the timeout (the tab stays frozen).
	r.open(t, "/pilot.html")
	if out, isErr := r.interact(t, map[string]any{"action": "execute_js", "script": "while(true){}", "timeout_ms": 1000}); !isErr || out["error"] != "timeout" {
		t.Errorf("execute_js endless loop: %v", out)
	}

	r.setPilot(t, false)
	if out, _ := r.interact(t, hl); out["error"] != "ai_web_pilot_disabled" {
		t.Fatalf("after switching off: %v", out)
	}
}

// TestFirefoxOriginWaitsForTheHumanInTmux: the Firefox build's random
// origin is refused, and the page's errors stay in the browser, until the
// human presses y on the dashboard's prompt (in a real terminal), which
// names the origin and the browser; then they arrive, and the answer is
// kept for the port.
func TestFirefoxOriginWaitsForTheHumanInTmux(t *testing.T) {
	firefoxPath(t)
	r := &foxRig{port: freePort(t)}
	state := filepath.Join(testHome, ".gasoline", "decisions-"+itoa(r.port)+".json")
	os.Remove(state)
	dash := startDashboard(t, r.port, "trust")
	dash.await(10*time.Second, "server in this process")
	r.ai = mcpStdio(t, r.port, "ff-trust-agent")
	r.site = fixtureServer(t)
	r.f = launchFirefox(t, firefoxExtension(t, "http://127.0.0.1:"+itoa(r.port)))
	dash.await(15*time.Second, "ACCEPT EXTENSION? "+ffOrigin, "browser: Firefox 153", "y accept · n refuse")
	r.f.navigate(t, r.f.tab, r.site+"/capture.html")
	popup := r.f.openExtensionPage(t, "ui/popup.html")
	waitFor(t, 10*time.Second, "the extension to hold the page's errors and say why", func() bool {
		st, err := r.f.eval(popup, `chrome.runtime.sendMessage({type: 'status'})`)
		m, _ := st.(map[string]any)
		if err != nil || m == nil {
			return false
		}
		q, _ := m["queued"].(float64)
		return q > 0 && strings.Contains(fmt.Sprint(m["last_error"]), "accept")
	})
	r.f.closeTab(t, popup)
	if errs := observe(t, r.ai, map[string]any{"what": "errors"}); len(entries(errs)) != 0 {
		t.Fatalf("errors reached the server before the human accepted: %v", errs)
	}
	if page := observe(t, r.ai, map[string]any{"what": "page"}); page["url"] != nil {
		t.Fatalf("the page reached the server before the human accepted: %v", page)
	}
	dash.keys("y")
	dash.await(5*time.Second, "accepted: "+ffOrigin)
	waitFor(t, 15*time.Second, "the held errors", func() bool {
		return findContains(entries(observe(t, r.ai, map[string]any{"what": "errors"})), "message", "first-line boom") != nil
	})
	if b, err := os.ReadFile(state); err != nil || !strings.Contains(string(b), `"origin": "`+ffOrigin+`"`) || !strings.Contains(string(b), `"accepted": true`) {
		t.Fatalf("the answer is not kept for the port: %s %v", b, err)
	}
}
