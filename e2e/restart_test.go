//go:build e2e

package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDeliveryAcrossServerRestart stops the server while the page logs 50
// events, kills the extension's service worker while it holds them, starts
// the server again on the same port, and expects all 50.
func TestDeliveryAcrossServerRestart(t *testing.T) {
	r := newRig(t, "restart-agent", map[string]any{"log_level": "all"})
	ai, site, b, port := r.ai, r.site, r.b, r.port
	if err := chromedp.Do(b.ctx, chromedp.Navigate(site+"/capture.html")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the extension to reach the server", func() bool {
		return observe(t, ai, map[string]any{"what": "page"})["extension_connected"] == true
	})

	ai.Close() // the only server process exits with its MCP client
	waitFor(t, 5*time.Second, "the port to be free", func() bool { return portFree(port) })

	if err := chromedp.Do(b.ctx, chromedp.Evaluate[chromedp.Void](`logBurst("offline", 50)`)); err != nil {
		t.Fatal(err)
	}
	// The 50 must be held by the worker, undelivered, before the server returns.
	waitFor(t, 10*time.Second, "the worker to hold the 50 undelivered events", func() bool {
		held, err := chromedp.Run(b.sw, chromedp.Evaluate[bool](`(() => { const s = status(); return !s.connected && s.queued >= 50; })()`))
		return err == nil && held
	})

	// MV3 stops idle workers; what one held must survive it.
	b.killWorker(t)

	ai2 := mcpStdio(t, port, "restart-agent-2")
	// A page event wakes the worker, which reloads its queue.
	if err := chromedp.Do(b.ctx, chromedp.Evaluate[chromedp.Void](`console.log("wake")`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "all 50 offline events", func() bool {
		res := observe(t, ai2, map[string]any{"what": "logs", "url_filter": "capture.html", "limit": 500})
		if find(entries(res), "message", "wake") == nil {
			return false
		}
		for i := range 50 {
			if find(entries(res), "message", fmt.Sprintf("offline-%d", i)) == nil {
				return false
			}
		}
		return true
	})
}
