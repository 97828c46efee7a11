//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestFirefoxEveryRequest: Firefox's browser.webRequest gives the Firefox
// build every request of the page as Chromium's does (sw/requests.js): the
// 404 image, the 404 script and the 500 fetch with their types under
// status_min 400, each fetch once (the hooks' entry, joined), and the
// document.
func TestFirefoxEveryRequest(t *testing.T) {
	r := newFoxRig(t, "ff-requests-agent", map[string]any{"network_bodies": true})
	f, site := r.f, r.site
	f.navigate(t, f.tab, site+"/requests.html")
	waitFor(t, 10*time.Second, "the page's requests", func() bool {
		done, err := f.eval(f.tab, `!!(window.__done && __done.fail && __done.ok && __done.abort && __done.dropped)`)
		return err == nil && done == true
	})
	failed := threeFailedRequests(t, r.ai, site)
	for _, want := range []struct {
		path, typ string
		status    float64
	}{{"/assets/hero.png", "image", 404}, {"/missing.js", "script", 404}, {"/api/fail", "fetch", 500}} {
		if e := find(failed, "url", site+want.path); e["type"] != want.typ || e["status"] != want.status {
			t.Errorf("%s: %v, want type %s status %v", want.path, e, want.typ, want.status)
		}
	}
	// Until the background script holds nothing (no copy waiting for its join, nothing undelivered).
	page := f.openExtensionPage(t, "ui/options.html")
	waitFor(t, 10*time.Second, "the background script to hold nothing", func() bool {
		idle, err := f.eval(page, `chrome.runtime.sendMessage({type: 'status'}).then((s) => s.requests.pending === 0 && s.queued === 0)`)
		return err == nil && idle == true
	})
	f.closeTab(t, page)
	all := entries(observe(t, r.ai, map[string]any{"what": "network", "limit": 100}))
	count := map[string]int{}
	for _, e := range all {
		count[fmt.Sprint(e["url"])]++
	}
	// The fetches the hooks saw too, once each. (Firefox may ask twice for a script or an image its
	// preloader asked for first: two requests, both listed.)
	if d := find(all, "url", site+"/api/dropped"); d["type"] != "fetch" || d["failed"] != true || !strings.Contains(fmt.Sprint(d["error"]), "(NS_ERROR_") {
		t.Errorf("the dropped fetch: %v, want the hooks' entry with the browser's error beside the page's", d)
	}
	for _, u := range []string{"/api/fail", "/api/ok?x=2", "/api/dropped", "/requests.html"} {
		if count[site+u] != 1 {
			t.Errorf("%s listed %d times: %s", u, count[site+u], mustJSON(all))
		}
	}
	if d := find(all, "url", site+"/requests.html"); d["type"] != "document" || d["status"] != float64(200) {
		t.Errorf("document: %v", d)
	}
	if ok := find(all, "url", site+"/api/ok?x=2"); ok["type"] != "fetch" {
		t.Errorf("the fetch is not the hooks' entry: %v", ok)
	}
}
