//go:build e2e

package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
)

// A fetch and an XHR whose answers wait 300 ms before their headers show
// that wait in observe network's timing, with bodies captured and without
// (the two ways inject-network.js builds an entry); two POSTs to one URL at
// once, answered after 900 and 300 ms, each get their own wait.
func TestFetchAndXHRTimingPhases(t *testing.T) {
	r := newRig(t, "e2e-timing", map[string]any{"network_bodies": true})
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/dom.html")); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	for _, bodies := range []bool{true, false} {
		if !bodies {
			r.b.setCapture(t, map[string]any{"network_bodies": false})
		}
		k := fmt.Sprintf("bodies-%v", bodies)
		if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](timingWorkload(k), chromedp.EvalAwaitPromise)); err != nil {
			t.Fatalf("%s: the page's requests: %v", k, err)
		}
		checkTiming(t, r.ai, r.site, k)
	}
	// The page's resource buffer full: the entries come from the extension's observer.
	full := `performance.setResourceTimingBufferSize(1); fetch('/api/ok?fill').then((r) => r.text()).then(() => true)`
	for _, js := range []string{full, timingWorkload("full")} {
		if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise)); err != nil {
			t.Fatalf("full: the page's requests: %v", err)
		}
	}
	inBuffer, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[int](`performance.getEntriesByType('resource').filter((e) => e.name.includes('k=full')).length`))
	if err != nil || inBuffer != 0 {
		t.Fatalf("the page's buffer is not full: %d of the workload's entries in it (%v)", inBuffer, err)
	}
	checkTiming(t, r.ai, r.site, "full")
}

// The same in Firefox ESR, with bodies captured.
func TestFirefoxFetchAndXHRTimingPhases(t *testing.T) {
	r := newFoxRig(t, "ff-timing", map[string]any{"network_bodies": true})
	r.open(t, "/dom.html")
	if _, err := r.f.eval(r.f.tab, timingWorkload("firefox")); err != nil {
		t.Fatalf("the page's requests: %v", err)
	}
	checkTiming(t, r.ai, r.site, "firefox")
}

// timingWorkload is the page's requests, each URL marked with k: a fetch
// and an XHR answered after 300 ms, then two POSTs to one URL at once.
func timingWorkload(k string) string {
	return fmt.Sprintf(`(async () => {
		await (await fetch('/api/slow?ms=300&k=f-%[1]s')).text();
		await new Promise((done) => {
			const x = new XMLHttpRequest();
			x.open('GET', '/api/slow?ms=300&k=x-%[1]s');
			x.addEventListener('loadend', done);
			x.send();
		});
		const post = (ms) => fetch('/api/slow?k=pair-%[1]s', {method: 'POST', body: String(ms)}).then((r) => r.text());
		await Promise.all([post(900), post(300)]);
		return true;
	})()`, k)
}

// checkTiming awaits timingWorkload(k)'s four entries with their timing and
// checks each wait is its own.
func checkTiming(t *testing.T, ai *client.Client, site, k string) {
	t.Helper()
	var net map[string]any
	waitFor(t, 30*time.Second, k+": four requests with their timing", func() bool {
		net = observe(t, ai, map[string]any{"what": "network", "url_filter": k})
		n := 0
		for _, e := range entries(net) {
			if e["timing"] != nil {
				n++
			}
		}
		return n == 4
	})
	wait := func(e map[string]any) float64 {
		tm, _ := e["timing"].(map[string]any)
		w, _ := tm["wait"].(float64)
		return w
	}
	for _, want := range []struct{ path, typ string }{{"/api/slow?ms=300&k=f-" + k, "fetch"}, {"/api/slow?ms=300&k=x-" + k, "xhr"}} {
		e := find(entries(net), "url", site+want.path)
		if e == nil || e["type"] != want.typ || wait(e) < 250 || wait(e) > e["duration_ms"].(float64) {
			t.Errorf("%s %s: want timing.wait ≥ 250 ms and within duration_ms: %v", k, want.typ, e)
		}
	}
	// Each POST's wait is most of its own duration (until its headers): swapped, the 300 ms
	// one would have waited longer than it took, the 900 ms one less than half of it.
	var long, short int
	for _, e := range entries(net) {
		if e["method"] != "POST" {
			continue
		}
		took, _ := e["duration_ms"].(float64)
		w := wait(e)
		if w > took || w < took/2 {
			t.Errorf("%s: a POST that took %v ms waited %v ms: not its own phases: %v", k, took, w, e)
		}
		switch {
		case w >= 850:
			long++
		case w >= 250:
			short++
		}
	}
	if long != 1 || short != 1 {
		t.Errorf("%s: the two POSTs' waits are not one of 900 ms and one of 300 ms: %s", k, mustJSON(net))
	}
	with := len(mustJSON(net))
	for _, e := range entries(net) {
		delete(e, "timing")
	}
	t.Logf("%s: observe network's answer of 4 entries is %d B, %d B without timing", k, with, len(mustJSON(net)))
}
