//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// Several AIs, several tabs, two of them through relays: each opens its own
// tab and reads only its own tab's errors and page by default; one acting on
// the other's tab is refused, naming the owner, until the owner's client
// closes; a third session's configure track reads that tab; a session that
// claimed nothing still reads the human's tab.
func TestSeveralAIsOnSeveralTabs(t *testing.T) {
	r := newRig(t, "agent-human-tab", map[string]any{})
	human := r.open(t, "/act.html")
	r.setPilot(t, true)
	a := mcpStdio(t, r.port, "agent-a")
	b := mcpStdio(t, r.port, "agent-b")

	openTab := func(c mcpClient, path string) int {
		t.Helper()
		out, isErr, err := callTool(c, "interact", map[string]any{"action": "new_tab", "url": r.site + path})
		if err != nil || isErr {
			t.Fatalf("new_tab %s: %v %v", path, out, err)
		}
		return int(out["tab_id"].(float64))
	}
	tabA := openTab(a, "/three-errors.html")
	tabB := openTab(b, "/capture.html")
	if tabA == tabB || tabA == 0 {
		t.Fatalf("tabs %d and %d", tabA, tabB)
	}
	onlyTab := func(c mcpClient, tab int, what string) {
		t.Helper()
		var res map[string]any
		waitFor(t, 10*time.Second, what+" of tab "+itoa(tab), func() bool {
			res = observe(t, c, map[string]any{"what": what})
			return len(entries(res)) > 0
		})
		// Entries of one tab say it once, at the top; an entry of another would name its own.
		if res["tab"] != float64(tab) {
			t.Fatalf("%s read by default by the session on tab %d: %s", what, tab, mustJSON(res))
		}
		for _, e := range entries(res) {
			if e["tab"] != nil && e["tab"] != float64(tab) {
				t.Fatalf("%s of tab %v read by default by the session on tab %d", what, e["tab"], tab)
			}
		}
	}
	onlyTab(a, tabA, "errors")
	onlyTab(b, tabB, "errors")
	if info := analyze(t, a, map[string]any{"target": "page_info"}); !strings.HasSuffix(info["url"].(string), "/three-errors.html") {
		t.Fatalf("a's page: %v", info["url"])
	}
	if info := analyze(t, b, map[string]any{"target": "page_info"}); !strings.HasSuffix(info["url"].(string), "/capture.html") {
		t.Fatalf("b's page: %v", info["url"])
	}
	// Streamed notifications go to the session whose tab they concern.
	chA, chB := listen(t, a), listen(t, b)
	for _, c := range []mcpClient{a, b} {
		configureStreaming(t, c, map[string]any{"enabled": true, "events": []string{"errors"}, "throttle_seconds": 1})
	}
	runJS := func(c mcpClient, script string) {
		t.Helper()
		if out, isErr, err := callTool(c, "interact", map[string]any{"action": "execute_js", "script": script}); err != nil || isErr {
			t.Fatalf("execute_js: %v %v", out, err)
		}
	}
	runJS(a, `console.error('only-for-a')`)
	collect(t, chA, 15*time.Second, "New error: only-for-a")
	runJS(b, `console.error('only-for-b')`)
	for _, n := range collect(t, chB, 15*time.Second, "New error: only-for-b") {
		if strings.Contains(mustJSON(n.params), "only-for-a") {
			t.Fatalf("b heard of a's tab: %s", mustJSON(n.params))
		}
	}
	// Reading another's tab by tab_id is allowed; acting on it is not.
	if info := analyze(t, a, map[string]any{"target": "page_info", "tab_id": tabB}); !strings.HasSuffix(info["url"].(string), "/capture.html") {
		t.Fatalf("a reading b's tab: %v", info["url"])
	}
	out, isErr, _ := callTool(a, "interact", map[string]any{"action": "reload", "tab_id": tabB})
	if msg, _ := out["message"].(string); !isErr || out["error"] != "tab_owned" || !strings.Contains(msg, `"agent-b"`) {
		t.Fatalf("a acting on b's tab: %v", out)
	}
	// A session that claimed nothing reads the human's tab.
	if info := analyze(t, r.ai, map[string]any{"target": "page_info"}); info["url"] != human {
		t.Fatalf("the session that claimed nothing: %v", info["url"])
	}
	// The owner's client goes: its tab is free.
	b.Close()
	waitFor(t, 10*time.Second, "b's tab to be free", func() bool {
		out, isErr, _ := callTool(a, "interact", map[string]any{"action": "reload", "tab_id": tabB})
		return !isErr && out["error"] == nil
	})
	// A third session tracks that tab and reads it by default.
	c := mcpStdio(t, r.port, "agent-c")
	if out, isErr, err := callTool(c, "configure", map[string]any{"action": "track", "tab_id": tabB}); err != nil || isErr {
		t.Fatalf("track: %v %v", out, err)
	}
	if info := analyze(t, c, map[string]any{"target": "page_info"}); !strings.HasSuffix(info["url"].(string), "/capture.html") {
		t.Fatalf("c tracking b's old tab: %v", info["url"])
	}
	if out, isErr, _ := callTool(c, "configure", map[string]any{"action": "track"}); isErr || out["tab"] != 0.0 {
		t.Fatalf("track back: %v", out)
	}
	if info := analyze(t, c, map[string]any{"target": "page_info"}); info["url"] != human {
		t.Fatalf("c back on the human's tab: %v", info["url"])
	}
	// a closes its own tab; it cannot close one it did not open.
	if out, isErr, _ := callTool(a, "interact", map[string]any{"action": "close_tab", "tab_id": tabB}); !isErr || out["error"] != "invalid_param" {
		t.Fatalf("a closing a tab it did not open: %v", out)
	}
	if out, isErr, _ := callTool(a, "interact", map[string]any{"action": "close_tab"}); isErr || out["tab_id"] != float64(tabA) {
		t.Fatalf("a closing its tab: %v", out)
	}
}

// A takeover keeps the AIs' tabs: when the process that hosts the server
// goes, the relays give the next server the tab each session owned, so
// another session is still refused on it and its owner still reads it.
func TestAITabsSurviveATakeover(t *testing.T) {
	r := newRig(t, "tabs-host", map[string]any{})
	human := r.open(t, "/act.html")
	r.setPilot(t, true)
	a := mcpStdio(t, r.port, "agent-a")
	c := mcpStdio(t, r.port, "agent-c")
	out, isErr, err := callTool(a, "interact", map[string]any{"action": "new_tab", "url": r.site + "/other.html"})
	if err != nil || isErr {
		t.Fatalf("new_tab: %v %v", out, err)
	}
	tab := out["tab_id"]

	r.ai.Close() // the host goes; a relay takes the port over
	aiTries(t, a, "observe", map[string]any{"what": "health"})
	aiTries(t, c, "observe", map[string]any{"what": "health"})
	waitFor(t, 20*time.Second, "the extension to reach the new server", func() bool {
		e, _ := health(r.port)["extension"].(map[string]any)
		return e != nil && e["connected"] == true
	})
	var refused map[string]any
	waitFor(t, 20*time.Second, "c refused on a's tab by the new server", func() bool {
		out, isErr, _ := callTool(c, "interact", map[string]any{"action": "reload", "tab_id": tab})
		refused = out
		msg, _ := out["message"].(string)
		return isErr && out["error"] == "tab_owned" && strings.Contains(msg, `"agent-a"`)
	})
	if info := analyze(t, a, map[string]any{"target": "page_info"}); !strings.HasSuffix(info["url"].(string), "/other.html") {
		t.Fatalf("a's default tab after the takeover: %v (refused c: %v)", info["url"], refused)
	}
	if info := analyze(t, c, map[string]any{"target": "page_info"}); info["url"] != human {
		t.Fatalf("c, which claimed nothing: %v", info["url"])
	}
}
