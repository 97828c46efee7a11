//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// act is one interact action that must succeed.
func act(t *testing.T, r *rig, args map[string]any) map[string]any {
	t.Helper()
	out, isErr := interact(t, r, args)
	if isErr {
		t.Fatalf("interact %v: %v", args, out)
	}
	return out
}

// refused is one interact action that must fail with code.
func refused(t *testing.T, r *rig, args map[string]any, code, contains string) map[string]any {
	t.Helper()
	out, isErr := interact(t, r, args)
	msg, _ := out["message"].(string)
	if !isErr || out["error"] != code || !strings.Contains(msg, contains) {
		t.Fatalf("interact %v: want %s containing %q, got %v", args, code, contains, out)
	}
	return out
}

func field(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func textOf(t *testing.T, r *rig, sel string) string {
	t.Helper()
	s, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[string](`document.querySelector(`+jsString(sel)+`).textContent`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The AI acts in the tab through the MCP client: every target kind, real
// input, what each action caused, the fields it may never fill, and its
// actions marked as its own beside the human's.
func TestAIActsInTheTab(t *testing.T) {
	r := newRig(t, "act-agent", map[string]any{"action_replay": true})
	page := r.open(t, "/act.html")
	refused(t, r, map[string]any{"action": "click", "selector": "#add"}, "ai_web_pilot_disabled", "Enable")
	r.setPilot(t, true)

	// The human clicks once (chromedp's input is a person's to the page).
	if err := chromedp.Do(r.b.ctx, chromedp.Click(chromedp.CSS("#add"))); err != nil {
		t.Fatal(err)
	}

	list := analyze(t, r.ai, map[string]any{"target": "interactive"})
	var addRef, pwState string
	for _, e := range list["elements"].([]any) {
		el := e.(map[string]any)
		if el["name"] == "Add" && el["role"] == "button" {
			addRef, _ = el["ref"].(string)
		}
		if el["selector"] == "#pw" {
			b, _ := json.Marshal(el)
			pwState = string(b)
		}
	}
	if addRef == "" || !strings.Contains(pwState, `"value_hidden":true`) || strings.Contains(pwState, `"value":`) {
		t.Fatalf("interactive list: Add ref %q, password %s\n%v", addRef, pwState, list)
	}

	// type by selector, click by text and by ref.
	out := act(t, r, map[string]any{"action": "type", "selector": "#q", "text": "hello world"})
	if field(out, "after", "value") != "hello world" || field(out, "target", "role") != "textbox" || field(out, "target", "name") != "Query" {
		t.Fatalf("type: %v", out)
	}
	out = act(t, r, map[string]any{"action": "click", "text": "Add"})
	if field(out, "target", "selector") != "#add" || textOf(t, r, "#count") != "Added 2" {
		t.Fatalf("click by text: %v (%s)", out, textOf(t, r, "#count"))
	}
	act(t, r, map[string]any{"action": "click", "ref": addRef})
	if got := textOf(t, r, "#count"); got != "Added 3" {
		t.Fatalf("click by ref: %s", got)
	}
	// Several elements show the text: the AI is told which, with refs.
	refused(t, r, map[string]any{"action": "click", "text": "Buy"}, "invalid_param", `"ref"`)

	// Enter submits; type without clear appends.
	act(t, r, map[string]any{"action": "type", "selector": "#q", "text": "find me", "submit": true})
	if got := textOf(t, r, "#searched"); got != "searched: find me" {
		t.Fatalf("type + submit: %q", got)
	}
	out = act(t, r, map[string]any{"action": "type", "selector": "#q", "text": " now", "clear": false})
	if field(out, "after", "value") != "find me now" {
		t.Fatalf("type without clear: %v", out)
	}
	out = act(t, r, map[string]any{"action": "select", "selector": "#size", "value": "Large"})
	if field(out, "after", "value") != "Large" {
		t.Fatalf("select: %v", out)
	}
	act(t, r, map[string]any{"action": "press_key", "key": "Escape"})
	if got := textOf(t, r, "#keys"); got != "escaped" {
		t.Fatalf("press_key Escape: %q", got)
	}
	act(t, r, map[string]any{"action": "hover", "selector": "#hoverme"})
	act(t, r, map[string]any{"action": "wait_for", "text": "Tip shown", "timeout_ms": 3000})
	// A target below the fold is scrolled into view first.
	act(t, r, map[string]any{"action": "click", "selector": "#far"})
	if got := textOf(t, r, "#keys"); got != "far clicked" {
		t.Fatalf("click out of view: %q", got)
	}
	act(t, r, map[string]any{"action": "scroll", "to": "top"})

	// What an action caused: an exception, a request's status.
	out = act(t, r, map[string]any{"action": "click", "selector": "#boom"})
	if errs, _ := field(out, "caused", "errors").([]any); len(errs) != 1 || !strings.Contains(errs[0].(map[string]any)["message"].(string), "boom from the button") {
		t.Fatalf("a click that throws: %v", out)
	}
	// A page that changed goes on being watched until it is quiet for 300 ms: its later error is caused.
	out = act(t, r, map[string]any{"action": "click", "selector": "#later"})
	if errs, _ := field(out, "caused", "errors").([]any); len(errs) != 1 || !strings.Contains(errs[0].(map[string]any)["message"].(string), "the later step failed") {
		t.Fatalf("a click whose page reacts in steps: %v", out)
	}
	out = act(t, r, map[string]any{"action": "click", "text": "Load"})
	reqs, _ := field(out, "caused", "requests").([]any)
	if len(reqs) != 1 || !strings.HasSuffix(reqs[0].(map[string]any)["url"].(string), "/api/fail") || reqs[0].(map[string]any)["status"] != 500.0 {
		t.Fatalf("a click that fetches: %v", out)
	}
	act(t, r, map[string]any{"action": "wait_for", "selector": "#loaded", "timeout_ms": 3000})
	refused(t, r, map[string]any{"action": "wait_for", "text": "never shown", "timeout_ms": 300}, "timeout", "never shown")

	// Never a secret, never a file; nothing under another element.
	refused(t, r, map[string]any{"action": "type", "selector": "#pw", "text": "hunter2"}, "forbidden", "password")
	refused(t, r, map[string]any{"action": "type", "selector": "#card", "text": "123456"}, "forbidden", "otp")
	refused(t, r, map[string]any{"action": "select", "selector": "#file", "value": "x"}, "forbidden", "file")
	refused(t, r, map[string]any{"action": "click", "selector": "#covered"}, "not_actionable", "covered by")
	refused(t, r, map[string]any{"action": "click", "selector": "#nope"}, "not_found", "#nope")
	refused(t, r, map[string]any{"action": "click", "selector": "a[["}, "invalid_param", "not valid CSS")
	refused(t, r, map[string]any{"action": "navigate", "url": "javascript:alert(1)"}, "invalid_param", "http")
	refused(t, r, map[string]any{"action": "press_key", "key": "Hyper+q"}, "invalid_param", "modifier")

	// The AI's actions are its own; the human's click is not.
	actions := observe(t, r.ai, map[string]any{"what": "actions", "limit": 100})
	var ai, human int
	for _, e := range actions["entries"].([]any) {
		a := e.(map[string]any)
		if a["type"] != "click" || a["selector"] != "#add" {
			continue
		}
		if a["source"] == "ai" {
			ai++
		} else {
			human++
		}
	}
	if ai != 2 || human != 1 {
		t.Fatalf("clicks on #add: %d by the AI, %d by the human; want 2 and 1\n%v", ai, human, actions)
	}

	// Navigation: to a page, back, forward, reload; each answer names the page.
	out = act(t, r, map[string]any{"action": "click", "text": "Next page"})
	if !strings.HasSuffix(field(out, "caused", "navigation", "url").(string), "/other.html") {
		t.Fatalf("a click that navigates: %v", out)
	}
	out = act(t, r, map[string]any{"action": "back"})
	if field(out, "caused", "navigation", "url") != page || field(out, "caused", "navigation", "title") != "Act" {
		t.Fatalf("back: %v", out)
	}
	out = act(t, r, map[string]any{"action": "forward"})
	if !strings.HasSuffix(field(out, "caused", "navigation", "url").(string), "/other.html") {
		t.Fatalf("forward: %v", out)
	}
	out = act(t, r, map[string]any{"action": "navigate", "url": page})
	if field(out, "caused", "navigation", "url") != page {
		t.Fatalf("navigate: %v", out)
	}
	// A ref of the page before is refused as such.
	refused(t, r, map[string]any{"action": "click", "ref": addRef}, "not_found", "page changed")
	start := time.Now()
	out = act(t, r, map[string]any{"action": "reload"})
	if field(out, "caused", "navigation", "url") != page {
		t.Fatalf("reload: %v", out)
	}
	t.Logf("reload answered in %v", time.Since(start))
}

// pendingApproval waits for the one action waiting for the human and
// returns it, as GET /api/approvals shows it.
func pendingApproval(t *testing.T, r *rig) map[string]any {
	t.Helper()
	var req map[string]any
	waitFor(t, 10*time.Second, "an action waiting for the human", func() bool {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/approvals", r.port))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var st struct{ Pending []map[string]any }
		if json.NewDecoder(resp.Body).Decode(&st) != nil || len(st.Pending) == 0 {
			return false
		}
		req = st.Pending[0]
		return true
	})
	return req
}

func humanAnswers(t *testing.T, r *rig, path string, id any) {
	t.Helper()
	resp, err := humanPost(t, r.port, path, fmt.Sprintf(`{"id":%v,"approve":true}`, id))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s: %v %v", path, resp, err)
	}
	resp.Body.Close()
}

// In ask mode the waiting action names its target as the page does; the
// human's rule covers the next click on that origin; a navigation to
// another origin still asks.
func TestAIActionsAskTheHuman(t *testing.T) {
	r := newRig(t, "ask-agent", map[string]any{})
	page := r.open(t, "/act.html")
	r.setPilot(t, true)
	if resp, err := humanPost(t, r.port, "/api/approvals/mode", `{"mode":"ask"}`); err != nil || resp.StatusCode != 200 {
		t.Fatalf("ask mode: %v %v", resp, err)
	}
	// A target that is not there is refused before anyone is asked.
	refused(t, r, map[string]any{"action": "click", "selector": "#nope"}, "not_found", "#nope")
	refused(t, r, map[string]any{"action": "type", "selector": "#pw", "text": "x"}, "forbidden", "password")

	done := make(chan map[string]any, 1)
	go func() {
		out, _, _ := callTool(r.ai, "interact", map[string]any{"action": "click", "text": "Add"})
		done <- out
	}()
	req := pendingApproval(t, r)
	if req["action"] != "click" || req["target"] != `button "Add" #add` {
		t.Fatalf("the waiting click: %v", req)
	}
	humanAnswers(t, r, "/api/approvals/rule", req["id"])
	if out := <-done; field(out, "target", "selector") != "#add" {
		t.Fatalf("the approved click: %v", out)
	}
	// The rule covers the next click on this origin: no question.
	if out := act(t, r, map[string]any{"action": "click", "selector": "#add"}); textOf(t, r, "#count") != "Added 2" {
		t.Fatalf("the click under the rule: %v", out)
	}
	// A navigation to another origin asks, whatever rules exist; the same
	// server's other name is another origin.
	other := strings.Replace(page, "127.0.0.1", "localhost", 1)
	go func() {
		out, _, _ := callTool(r.ai, "interact", map[string]any{"action": "navigate", "url": other})
		done <- out
	}()
	req = pendingApproval(t, r)
	if req["action"] != "navigate" || req["to"] != other {
		t.Fatalf("the waiting navigation: %v", req)
	}
	humanAnswers(t, r, "/api/approvals/rule", req["id"])
	if out := <-done; field(out, "caused", "navigation", "url") != other {
		t.Fatalf("the approved navigation: %v", out)
	}
	go func() {
		out, _, _ := callTool(r.ai, "interact", map[string]any{"action": "navigate", "url": page})
		done <- out
	}()
	if req = pendingApproval(t, r); req["to"] != page {
		t.Fatalf("a second navigation across origins was not asked: %v", req)
	}
	humanAnswers(t, r, "/api/approvals/answer", req["id"])
	<-done
	// A tab of the session's own asks too, naming where it opens.
	go func() {
		out, _, _ := callTool(r.ai, "interact", map[string]any{"action": "new_tab", "url": page})
		done <- out
	}()
	if req = pendingApproval(t, r); req["action"] != "new_tab" || req["to"] != page {
		t.Fatalf("new_tab did not ask: %v", req)
	}
	humanAnswers(t, r, "/api/approvals/answer", req["id"])
	if out := <-done; out["tab_id"] == nil {
		t.Fatalf("the approved new_tab: %v", out)
	}
}
