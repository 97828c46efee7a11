//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestFirefoxAIActs: the same actions in Firefox, where the content script
// dispatches the events (README: what Firefox cannot do): type, click by
// text and by ref, Enter submits, select, wait_for that comes and one that
// times out, a click that throws, a password refused, the AI's actions
// marked as its own beside the human's, navigate / back / forward / reload.
func TestFirefoxAIActs(t *testing.T) {
	r := newFoxRig(t, "ff-act-agent", map[string]any{"action_replay": true})
	page := r.open(t, "/act.html")
	r.setPilot(t, true)
	r.f.click(t, r.f.tab, "#add") // the human, through WebDriver's real input
	text := func(sel string) string {
		v, err := r.f.eval(r.f.tab, fmt.Sprintf(`document.querySelector(%s).textContent`, jsString(sel)))
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(v)
	}
	do := func(args map[string]any) map[string]any {
		t.Helper()
		out, isErr := r.interact(t, args)
		if isErr {
			t.Fatalf("interact %v: %v", args, out)
		}
		return out
	}
	no := func(args map[string]any, code, contains string) {
		t.Helper()
		out, isErr := r.interact(t, args)
		if msg, _ := out["message"].(string); !isErr || out["error"] != code || !strings.Contains(msg, contains) {
			t.Fatalf("interact %v: want %s with %q, got %v", args, code, contains, out)
		}
	}

	var addRef string
	for _, e := range analyze(t, r.ai, map[string]any{"target": "interactive"})["elements"].([]any) {
		if el := e.(map[string]any); el["name"] == "Add" {
			addRef, _ = el["ref"].(string)
		}
	}
	if out := do(map[string]any{"action": "type", "selector": "#q", "text": "hello fox"}); field(out, "after", "value") != "hello fox" {
		t.Fatalf("type: %v", out)
	}
	do(map[string]any{"action": "click", "text": "Add"})
	do(map[string]any{"action": "click", "ref": addRef})
	if got := text("#count"); got != "Added 3" {
		t.Fatalf("clicks: %s", got)
	}
	do(map[string]any{"action": "type", "selector": "#q", "text": "find fox", "submit": true})
	if got := text("#searched"); got != "searched: find fox" {
		t.Fatalf("type + submit: %q", got)
	}
	if out := do(map[string]any{"action": "select", "selector": "#size", "value": "l"}); field(out, "after", "value") != "Large" {
		t.Fatalf("select: %v", out)
	}
	out := do(map[string]any{"action": "click", "selector": "#boom"})
	if errs, _ := field(out, "caused", "errors").([]any); len(errs) != 1 || !strings.Contains(mustJSON(errs), "boom from the button") {
		t.Fatalf("a click that throws: %v", out)
	}
	out = do(map[string]any{"action": "click", "selector": "#later"})
	if errs, _ := field(out, "caused", "errors").([]any); len(errs) != 1 || !strings.Contains(mustJSON(errs), "the later step failed") {
		t.Fatalf("a click whose page reacts in steps: %v", out)
	}
	do(map[string]any{"action": "click", "text": "Load"})
	do(map[string]any{"action": "wait_for", "text": "Loaded 500", "timeout_ms": 5000})
	no(map[string]any{"action": "wait_for", "selector": "#never", "timeout_ms": 300}, "timeout", "#never")
	no(map[string]any{"action": "type", "selector": "#pw", "text": "hunter2"}, "forbidden", "password")

	var ai, human int
	for _, e := range entries(observe(t, r.ai, map[string]any{"what": "actions", "limit": 100})) {
		if e["type"] == "click" && e["selector"] == "#add" {
			if e["source"] == "ai" {
				ai++
			} else {
				human++
			}
		}
	}
	if ai != 2 || human != 1 {
		t.Fatalf("clicks on #add: %d by the AI, %d by the human; want 2 and 1", ai, human)
	}

	out = do(map[string]any{"action": "navigate", "url": r.site + "/other.html"})
	if !strings.HasSuffix(fmt.Sprint(field(out, "caused", "navigation", "url")), "/other.html") {
		t.Fatalf("navigate: %v", out)
	}
	if out = do(map[string]any{"action": "back"}); field(out, "caused", "navigation", "url") != page {
		t.Fatalf("back: %v", out)
	}
	if out = do(map[string]any{"action": "forward"}); !strings.HasSuffix(fmt.Sprint(field(out, "caused", "navigation", "url")), "/other.html") {
		t.Fatalf("forward: %v", out)
	}
	if out = do(map[string]any{"action": "reload"}); !strings.HasSuffix(fmt.Sprint(field(out, "caused", "navigation", "url")), "/other.html") {
		t.Fatalf("reload: %v", out)
	}
}
