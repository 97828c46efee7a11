//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestFirefoxForgedEventsAreNotTheHumans: forge.html in the Firefox build.
// The page forges a person's actions at its first moment and again once
// the rest of the content script runs (its performance sample is there);
// a person's click is recorded and nothing else. The page drives the
// picker at #decoy as soon as it appears; only the person's click on
// #real picks.
func TestFirefoxForgedEventsAreNotTheHumans(t *testing.T) {
	r := newFoxRig(t, "ff-forge-agent", map[string]any{"action_replay": true})
	r.open(t, "/forge.html")
	waitFor(t, 20*time.Second, "the rest of the content script (its performance sample)", func() bool {
		pages, _ := observe(t, r.ai, map[string]any{"what": "performance", "url_filter": "forge.html"})["pages"].([]any)
		return len(pages) > 0
	})
	if n, err := r.f.eval(r.f.tab, `forge(), window.forged`); err != nil || n != 2.0 {
		t.Fatalf("the page forged %v times: %v", n, err)
	}
	r.f.click(t, r.f.tab, "#real")
	var actions []map[string]any
	waitFor(t, 20*time.Second, "the person's click in observe actions", func() bool {
		actions = entries(observe(t, r.ai, map[string]any{"what": "actions", "url_filter": "forge.html", "limit": 100}))
		return find(actions, "selector", "#real") != nil
	})
	if bad := forgedActions(actions); len(bad) > 0 {
		t.Fatalf("the page's forged events were recorded as the human's: %v", bad)
	}

	popup := r.f.openExtensionPage(t, "ui/popup.html")
	if _, err := r.f.eval(popup, `document.getElementById('point-note').value = 'ff note'; document.getElementById('point').click(); true`); err != nil {
		t.Logf("the popup's click: %v", err) // the popup closes itself
	}
	waitFor(t, 15*time.Second, "the page to drive the picker at #decoy", func() bool {
		d, err := r.f.eval(r.f.tab, `window.drove`)
		return err == nil && d == 1.0
	})
	if on, err := r.f.eval(r.f.tab, `!!document.querySelector('gasoline-picker')`); err != nil || on != true {
		t.Fatalf("the page's events ended the picker: %v %v", on, err)
	}
	// The popup closes itself once the picker runs: its tab gone, the page's is the one to bring forward.
	waitFor(t, 10*time.Second, "the popup to close itself", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		raw, err := r.f.bd.call(ctx, "browsingContext.getTree", map[string]any{"maxDepth": 0})
		return err == nil && !strings.Contains(string(raw), popup)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := r.f.bd.call(ctx, "browsingContext.activate", map[string]any{"context": r.f.tab}); err != nil {
		t.Fatalf("activate the page's tab: %v", err)
	}
	r.f.click(t, r.f.tab, "#real")
	got := newestPointed(t, r.ai)
	el, _ := got["entry"].(map[string]any)
	if el["selector"] != "#real" || got["note"] != "ff note" {
		t.Fatalf("picked: %s", mustJSON(got))
	}
	if all := entries(observe(t, r.ai, map[string]any{"what": "pointed"})); len(all) != 1 {
		t.Fatalf("%d picks: %s", len(all), mustJSON(all))
	}
}

// TestFirefoxCardsXMLAndGraphQLNeverWhole: cards.html in the Firefox
// build, the same checks as in Chromium.
func TestFirefoxCardsXMLAndGraphQLNeverWhole(t *testing.T) {
	r := newFoxRig(t, "ff-cards-agent", map[string]any{"network_bodies": true, "action_replay": true, "log_level": "all"})
	stream := readEventStream(t, r.port)
	r.open(t, "/cards.html")
	S := cardSecrets()
	for sel, text := range typedCard(S) {
		r.f.click(t, r.f.tab, sel)
		r.f.typeText(t, r.f.tab, text)
	}
	shot := screenshot(t, r.ai, map[string]any{"selector": "#card", "format": "png"})
	if shot.code != "" {
		t.Fatalf("screenshot: %s %s", shot.code, shot.msg)
	}
	if n := darkPixels(inner(shot.img)); n > 0 {
		t.Errorf("the card field shows %d dark pixels in a screenshot", n)
	}
	r.f.click(t, r.f.tab, "h1") // blur commits the inputs
	js, _ := json.Marshal(S)
	if _, err := r.f.eval(r.f.tab, `(send(`+string(js)+`), true)`); err != nil {
		t.Fatal(err)
	}
	cardsSeen(t, r.ai, r.port, S, stream)
	if strings.Contains(r.f.out.String(), S["card"]) {
		t.Errorf("Firefox's output holds the card")
	}
}
