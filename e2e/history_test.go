//go:build e2e

package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// The scenario: the page logs console.error("hist-<n>") every 100 ms, 120
// in all, over 12 s, while the server that holds them goes away.
const (
	histTotal = 120
	histJS    = `window.__n = 0; window.__t = setInterval(() => {
		console.error("hist-" + window.__n++);
		if (window.__n === 120) clearInterval(window.__t);
	}, 100)`
)

// historyBrowser is Chromium with the extension pointed at port, on a
// fixture page the server on port tracks.
func historyBrowser(t *testing.T, port int) *browser {
	t.Helper()
	b := launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(port)))
	b.setCapture(t, map[string]any{"log_level": "all"})
	url := fixtureServer(t) + "/other.html"
	if err := chromedp.Do(b.ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the server to track the page", func() bool {
		h := health(port)
		p, _ := h["page"].(map[string]any)
		return p != nil && p["url"] == url
	})
	return b
}

// heldErrors is how many errors the server on port holds now.
func heldErrors(t *testing.T, port int) int {
	t.Helper()
	h := health(port)
	if h == nil {
		t.Fatal("the owner does not answer /health")
	}
	return int(h["buffers"].(map[string]any)["errors"].(map[string]any)["count"].(float64))
}

// awaitEveryError reads observe{what:"errors"} until it holds hist-0 to
// hist-119, and fails if one is missing after 30 s or held twice.
func awaitEveryError(t *testing.T, ai mcpClient) {
	t.Helper()
	var got map[int]int
	wait.Until(30*time.Second, func() bool {
		got = map[int]int{}
		if res, isErr, err := tryObserve(ai, map[string]any{"what": "errors", "limit": 500}); err == nil && !isErr {
			for _, e := range entries(res) {
				m, _ := e["message"].(string)
				if n, err := strconv.Atoi(strings.TrimPrefix(m, "hist-")); err == nil && strings.HasPrefix(m, "hist-") {
					got[n]++
				}
			}
		}
		return len(got) == histTotal
	})
	var missing []int
	for i := range histTotal {
		switch got[i] {
		case 0:
			missing = append(missing, i)
		case 1:
		default:
			t.Errorf("hist-%d is held %d times", i, got[i])
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d errors readable; missing %v", histTotal-len(missing), histTotal, missing)
	}
}

// restoredHistory is the new owner's account of what it restored.
func restoredHistory(t *testing.T, ai mcpClient) map[string]any {
	t.Helper()
	h, _ := aiTries(t, ai, "observe", map[string]any{"what": "health"})["history"].(map[string]any)
	if h == nil {
		t.Fatal("health says nothing of the history")
	}
	return h
}

// logged waits until the history page has logged n errors.
func logged(t *testing.T, b *browser, n int) {
	t.Helper()
	waitFor(t, 20*time.Second, fmt.Sprintf("the page's error hist-%d", n-1), func() bool {
		got, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`window.__n`))
		return err == nil && got >= n
	})
}

// heldAtLeast waits until the server on port holds n errors, and says how
// many it holds then.
func heldAtLeast(t *testing.T, port, n int) (held int) {
	t.Helper()
	waitFor(t, 20*time.Second, fmt.Sprintf("%d errors held", n), func() bool { held = heldErrors(t, port); return held >= n })
	return held
}

// The owner is SIGKILLed once it has stored 15 of the page's errors (about
// 3 s into its 12 s) and a new one starts once the page has logged 80 of
// them. All 120 are readable from the new owner: those the old one had
// stored from its history on disk, those logged while no owner ran from the
// extension's queue, the rest as they come.
func TestHistorySurvivesSIGKILL(t *testing.T) {
	port := freePort(t) // with no history left on it
	old := startOwner(t, port)
	b := historyBrowser(t, port)

	if err := chromedp.Do(b.ctx, chromedp.Evaluate[chromedp.Void](histJS)); err != nil {
		t.Fatal(err)
	}
	held := heldAtLeast(t, port, 15) // else the test would not show that anything survived
	if err := old.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	old.Wait()
	logged(t, b, 80)
	startOwner(t, port)
	ai := mcpStdio(t, port, "history-agent") // relays to the new owner
	awaitEveryError(t, ai)

	h := restoredHistory(t, ai)
	if h["restored"].(float64) < float64(held) || h["from_pid"] != float64(old.Process.Pid) || h["previous"] != "crashed or killed" {
		t.Fatalf("the new owner's history: %v (the old one, pid %d, held %d errors)", h, old.Process.Pid, held)
	}
	t.Logf("SIGKILL with %d errors held, new owner after 80 logged: %d of %d readable; it restored %v entries",
		held, histTotal, histTotal, h["restored"])
}

// TestHistorySurvivesDashboardQuit: the human quits the dashboard that
// hosts the server (q in a real terminal) once it holds 15 of the page's
// errors, the attached MCP relay takes the port over, and the AI reads all
// 120 through it; a new dashboard says what was restored, and from whom.
func TestHistorySurvivesDashboardQuit(t *testing.T) {
	port := freePort(t) // with no history left on it
	dash := startDashboard(t, port, "history")
	dash.await(10*time.Second, "server in this process")
	ai := mcpStdio(t, port, "history-relay") // relays to the dashboard's server
	b := historyBrowser(t, port)

	if err := chromedp.Do(b.ctx, chromedp.Evaluate[chromedp.Void](histJS)); err != nil {
		t.Fatal(err)
	}
	held := heldAtLeast(t, port, 15)
	dash.keys("q")
	waitFor(t, 10*time.Second, "the dashboard to quit", func() bool { return !dash.alive() })
	awaitEveryError(t, ai)

	h := restoredHistory(t, ai)
	if h["restored"].(float64) < float64(held) || h["previous"] != "quit" || h["from_pid"] == nil {
		t.Fatalf("the relay's history: %v (the dashboard held %d errors)", h, held)
	}
	// Wide enough for the whole notice line: in 120 columns a problem notice
	// (no MCP client set up on this machine) shortens the history's to a count.
	again := startDashboardSized(t, 240, 30, port, "history-again")
	again.await(10*time.Second, "attached to a running server",
		fmt.Sprintf("history restored: %v entries from pid %v (quit)", h["restored"], h["from_pid"]))
	t.Logf("quit with %d errors held, relay took over: %d of %d readable; it restored %v entries",
		held, histTotal, histTotal, h["restored"])
}
