//go:build e2e

package e2e

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// sameValueJS builds, in the page, a value with a Map, a Date, an object
// with a toJSON (which must not be called), a form whose field named "id"
// shadows its id, and a cycle, parks it on window and logs it.
const sameValueJS = `(() => {
	const v = {
		m: new Map([['a', 1], ['b', { c: 2 }]]),
		d: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)),
		j: { toJSON() { window.__toJSONCalled = true; return 'replaced'; }, kept: 1 },
		f: document.createElement('form'),
	};
	v.f.id = 'account';
	v.f.className = 'card';
	v.f.append(Object.assign(document.createElement('input'), { name: 'id' })); // now v.f.id is the input
	v.self = v;
	window.__same = v;
	console.log('same-text', v);
	return true;
})()`

// The text both ways: page/serialize.js's rendering (PROTOCOL.md, "Values as JSON").
const sameValueText = `{"m":[["a",1],["b",{"c":2}]],"d":"2024-01-02T03:04:05.000Z","j":{"toJSON":"[Function: toJSON]","kept":1},"f":"<form#account.card>","self":"[Circular]"}`

// TestSameValueSameTextInLogsAndExecuteJS: a value logged by the page reads in
// observe logs as the JSON text execute_js returns for it: one serialiser in
// the page world and for the pilot's scripts.
func TestSameValueSameTextInLogsAndExecuteJS(t *testing.T) {
	r := newRig(t, "same-text-agent", map[string]any{"log_level": "all"})
	r.open(t, "/pilot.html")
	r.setPilot(t, true)
	if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](sameValueJS)); err != nil {
		t.Fatal(err)
	}
	checkSameText(t, r.ai, func() (map[string]any, bool) {
		return interact(t, r, map[string]any{"action": "execute_js", "script": "window.__same"})
	})
	if called, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`window.__toJSONCalled === true`)); err != nil || called {
		t.Fatalf("the page's toJSON was called (%v, %v)", called, err)
	}
}

// TestFirefoxSameValueSameText: the same in Firefox, where execute_js runs
// the serialiser through chrome.scripting in the page's main world.
func TestFirefoxSameValueSameText(t *testing.T) {
	r := newFoxRig(t, "ff-same-text-agent", map[string]any{"log_level": "all"})
	r.open(t, "/pilot.html")
	r.setPilot(t, true)
	if _, err := r.f.eval(r.f.tab, sameValueJS); err != nil {
		t.Fatal(err)
	}
	checkSameText(t, r.ai, func() (map[string]any, bool) {
		return r.interact(t, map[string]any{"action": "execute_js", "script": "window.__same"})
	})
	if called, err := r.f.eval(r.f.tab, `window.__toJSONCalled === true`); err != nil || called != false {
		t.Fatalf("the page's toJSON was called (%v, %v)", called, err)
	}
}

// checkSameText finds the logged value in observe logs and the value
// execute_js reads (run), and wants both to be sameValueText.
func checkSameText(t *testing.T, ai mcpClient, run func() (map[string]any, bool)) {
	t.Helper()
	var e map[string]any
	waitFor(t, 20*time.Second, "the logged value", func() bool {
		e = find(entries(observe(t, ai, map[string]any{"what": "logs"})), "message", "same-text")
		return e != nil
	})
	args, _ := e["args"].([]any)
	if len(args) != 1 || args[0] != sameValueText {
		t.Fatalf("observe logs read the value as %v, want %s", args, sameValueText)
	}
	out, isErr := run()
	if isErr {
		t.Fatalf("execute_js: %v", out)
	}
	var want any
	if err := json.Unmarshal([]byte(sameValueText), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out["result"], want) {
		t.Fatalf("execute_js read the value as %s, want %s", mustJSON(out["result"]), sameValueText)
	}
}
