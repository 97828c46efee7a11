//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// forgedActions is what the AI must never read as the human's on
// forge.html: the page's own submit, Enter, typing and decoy click.
func forgedActions(es []map[string]any) []string {
	var bad []string
	for _, e := range es {
		s := mustJSON(e)
		switch {
		case e["type"] == "submit", e["type"] == "keypress", strings.Contains(s, "forged-typing"), strings.Contains(s, "decoy"):
			bad = append(bad, s)
		}
	}
	return bad
}

// A page forges a person's actions at its first moment (content/start.js
// holds actions then) and again once the rest of the content script runs
// (content/actions.js): a dispatched submit, Enter, typing, a click() on a
// button, and requestSubmit() with nobody's click before it. Then a person
// clicks: only that click is recorded, and the generated test replays
// only it. Then the human starts the element picker with a note; the page
// sees the overlay and drives it with the pointer events a person would
// make at its #decoy: nothing is picked until the human clicks #real, and
// the pick is the extension's audit line, never the human's.
func TestForgedEventsAreNotTheHumans(t *testing.T) {
	r := newRig(t, "forge-agent", map[string]any{"action_replay": true})
	b := r.b
	page := r.site + "/forge.html"
	if err := chromedp.Do(b.ctx, chromedp.Navigate(page)); err != nil {
		t.Fatal(err)
	}
	world := contentWorld(t, b.ctx)
	waitFor(t, 20*time.Second, "the rest of the content script to take over from content/start.js", func() bool {
		return inWorld(b.ctx, world, `!!(globalThis.__gasolineStart && globalThis.__gasolineStart.taken && globalThis.__gasolineContent)`)
	})
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`forge(), window.forged`))
	if err != nil || n != 2 {
		t.Fatalf("the page forged %v times: %v", n, err)
	}
	real, err := chromedp.Run(b.ctx, chromedp.Evaluate[map[string]float64](`(() => { const r = document.getElementById('real').getBoundingClientRect();
		return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`))
	if err != nil {
		t.Fatal(err)
	}
	click(t, b, real["x"], real["y"])
	var actions []map[string]any
	waitFor(t, 20*time.Second, "the person's click in observe actions", func() bool {
		actions = entries(observe(t, r.ai, map[string]any{"what": "actions", "url_filter": "forge.html", "limit": 100}))
		return find(actions, "selector", "#real") != nil
	})
	if bad := forgedActions(actions); len(bad) > 0 {
		t.Fatalf("the page's forged events were recorded as the human's: %v", bad)
	}
	gen, isErr, err := callTool(r.ai, "generate", map[string]any{"format": "test", "name": "forge", "url_filter": "forge.html"})
	if err != nil || isErr {
		t.Fatalf("generate test: %v %v", err, gen)
	}
	if script := gen["script"].(string); !strings.Contains(script, "'Real'") || strings.Contains(script, "decoy") ||
		strings.Contains(script, "forged-typing") || strings.Contains(script, "Enter") {
		t.Fatalf("the generated test replays what the page forged:\n%s", script)
	}

	// The picker, driven by the page.
	startPicker(t, b, "the human's note")
	waitFor(t, 10*time.Second, "the page to drive the picker at #decoy", func() bool {
		d, err := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`window.drove`))
		return err == nil && d >= 1
	})
	if on, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!document.querySelector('gasoline-picker')`)); err != nil || !on {
		t.Fatalf("the page's events ended the picker: %v %v", on, err)
	}
	mouse(t, b, input.DispatchMouseEventTypeMouseMoved, real["x"], real["y"])
	click(t, b, real["x"], real["y"])
	got := newestPointed(t, r.ai)
	el, _ := got["entry"].(map[string]any)
	if el["selector"] != "#real" || got["note"] != "the human's note" {
		t.Fatalf("picked: %s", mustJSON(got))
	}
	if all := entries(observe(t, r.ai, map[string]any{"what": "pointed"})); len(all) != 1 {
		t.Fatalf("%d picks: %s", len(all), mustJSON(all))
	}
	// The pick's audit line is the extension's; the human's file has none of it.
	home := filepath.Join(testHome, ".gasoline")
	main, _ := os.ReadFile(filepath.Join(home, "audit.jsonl"))
	human, _ := os.ReadFile(filepath.Join(home, "audit.human.jsonl"))
	if !strings.Contains(string(main), `"event":"element_picked"`) || strings.Contains(string(human), `"reason":"#real"`) ||
		strings.Contains(string(human), "element_picked") {
		t.Fatalf("the pick's audit lines: main has element_picked %v; the human's file: %s",
			strings.Contains(string(main), "element_picked"), human)
	}
}
