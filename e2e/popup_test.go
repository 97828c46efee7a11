//go:build e2e

package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gasoline-dev/gasoline/server"
)

// TestPopupShowsConnectionAndCounts opens the real popup page after the
// fixture page ran and reads what a human would see.
func TestPopupShowsConnectionAndCounts(t *testing.T) {
	r := newRig(t, "popup-agent", map[string]any{"log_level": "all"})
	site, b, port := r.site, r.b, r.port
	if err := chromedp.Do(b.ctx, chromedp.Navigate(site+"/capture.html")); err != nil {
		t.Fatal(err)
	}
	popup, cancel := chromedp.NewContext(b.ctx)
	defer cancel()
	if err := chromedp.Do(popup, chromedp.Navigate(server.ExtensionOrigin+"/popup.html")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the popup to show a connected server with sent logs", func() bool {
		got, err := chromedp.Run(popup, chromedp.Evaluate[map[string]string](`({
			state: document.getElementById('state').textContent,
			server: document.getElementById('server').textContent,
			logs: document.querySelector('#counts tr:first-child td:nth-child(2)')?.textContent || '0'})`))
		if err != nil {
			return false
		}
		n, _ := strconv.Atoi(got["logs"])
		return got["state"] == "Connected" && got["server"] == "http://127.0.0.1:"+itoa(port) && n >= 5
	})
}
