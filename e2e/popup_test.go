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
	if err := chromedp.Do(popup, chromedp.Navigate(server.ExtensionOrigin+"/ui/popup.html")); err != nil {
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

// TestPopupPilotSwitchWaitsForTheWorker: until the worker has said whether
// the AI Web Pilot is on, the popup's switch cannot be clicked (an
// unchecked box then only means "not known yet", and a click would flip
// from a state the human never saw). The worker is kept busy until the
// popup has shown its switch, so its first answer comes after.
func TestPopupPilotSwitchWaitsForTheWorker(t *testing.T) {
	r := newRig(t, "popup-pilot-agent", map[string]any{})
	release := r.b.keepWorkerBusy(t)
	popup, cancel := chromedp.NewContext(r.b.ctx)
	defer cancel()
	if err := chromedp.Do(popup, chromedp.Navigate(server.ExtensionOrigin+"/ui/popup.html")); err != nil {
		t.Fatal(err)
	}
	sw, err := chromedp.Run(popup, chromedp.Evaluate[map[string]bool](`(() => {
		const box = document.querySelector('#pilot');
		const shown = { disabled: box.disabled, checked: box.checked };
		box.click(); // on a disabled box, nothing
		return shown;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if !sw["disabled"] || sw["checked"] {
		t.Fatalf("before the worker's first answer the switch is %v, want disabled and unchecked", sw)
	}
	release()
	waitFor(t, 20*time.Second, "the switch enabled once the worker answered", func() bool {
		ok, err := chromedp.Run(popup, chromedp.Evaluate[bool](`document.querySelector('#pilot').disabled === false && !document.querySelector('#pilot').checked`))
		return err == nil && ok
	})
	if on, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](`globalThis.status().pilot`)); err != nil || on {
		t.Fatalf("the pilot after the click on the disabled switch: %v %v, want off", on, err)
	}
}
