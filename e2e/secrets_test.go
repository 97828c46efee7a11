//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestSecretsNeverReachTheAI: a real page sends a password in a JSON body
// and in a form body, a token in a query string, a custom authorization
// header, gets an access token in a response, and the user types into a
// text field named "pass"; observe network, network_bodies and actions hold
// none of those values, and say [redacted] where they were.
func TestSecretsNeverReachTheAI(t *testing.T) {
	r := newRig(t, "secrets-agent", map[string]any{"network_bodies": true, "action_replay": true})
	// What the content script hands the worker, recorded in the worker: the extension scrubs before
	// anything leaves the page (the worker adds each event's page URL, which the server scrubs).
	if _, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](`globalThis.__received = [];
		chrome.runtime.onMessage.addListener((m) => {
			if (m && m.type === 'events') __received.push(JSON.stringify(m.events, (k, v) => (k === 'page' ? undefined : v)));
		}); true`)); err != nil {
		t.Fatal(err)
	}
	page := r.site + "/secrets.html?session_id=page-SECRET6"
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(page)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the page's requests", func() bool {
		done, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`!!(window.__secrets && __secrets.sent)`))
		return err == nil && done
	})
	if err := chromedp.Do(r.b.ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name="pass"]`), "typed-SECRET7"),
		chromedp.SendKeys(chromedp.CSS(`input[name="city"]`), "Lyon"),
		chromedp.Click(chromedp.CSS("h1")), // blur commits the inputs
	); err != nil {
		t.Fatal(err)
	}

	var network, bodies, actions map[string]any
	waitFor(t, 10*time.Second, "five bodies and both inputs", func() bool {
		network = observe(t, r.ai, map[string]any{"what": "network", "url_filter": "/api/"})
		bodies = observe(t, r.ai, map[string]any{"what": "network_bodies", "url_filter": "/api/"})
		actions = observe(t, r.ai, map[string]any{"what": "actions"})
		return len(entries(network)) >= 5 && len(entries(bodies)) >= 5 && find(entries(actions), "value", "Lyon") != nil &&
			find(entries(actions), "selector", `input[name="pass"]`) != nil
	})
	for name, res := range map[string]map[string]any{"network": network, "network_bodies": bodies, "actions": actions} {
		text := mustJSON(res)
		if strings.Contains(text, "SECRET") {
			t.Errorf("observe %s holds a secret: %s", name, text)
		}
		if !strings.Contains(text, "[redacted]") {
			t.Errorf("observe %s says nowhere [redacted]: %s", name, text)
		}
	}
	received, err := chromedp.Run(r.b.sw, chromedp.Evaluate[string](`__received.join('\n')`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(received, "SECRET") || !strings.Contains(received, "[redacted]") || !strings.Contains(received, "/api/token") {
		t.Errorf("the content script sent the worker: %s", received)
	}
	// The shape stays: the keys the page sent are there, with their values redacted.
	all := mustJSON(bodies)
	for _, want := range []string{
		`{\"user\":\"bob\",\"password\":\"[redacted]\"}`,
		`user=bob\u0026password=[redacted]`,
		`access_token=[redacted]\u0026page=2`,
		`"x-forwarded-authorization":"[redacted]"`,
		`{\"access_token\":\"[redacted]\",\"token_type\":\"bearer\",\"expires_in\":3600}`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("network_bodies lacks %s: %s", want, all)
		}
	}
	pass := find(entries(actions), "selector", `input[name="pass"]`)
	if pass["type"] != "input" || pass["value"] != nil {
		t.Errorf("the pass field's action: %v", pass)
	}
	nav := mustJSON(actions)
	if !strings.Contains(nav, "session_id=[redacted]") {
		t.Errorf("the navigation's URL is not scrubbed: %s", nav)
	}
}
