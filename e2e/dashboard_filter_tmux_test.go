//go:build e2e

package e2e

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// paneRows is the lines of the screen between the pane's column titles
// and the status line: the rows the pane shows.
func paneRows(screen string) []string {
	var rows []string
	in := false
	for _, l := range strings.Split(screen, "\n") {
		switch {
		case strings.HasPrefix(l, "TIME "):
			in = true
		case in && strings.TrimSpace(l) == "":
			return rows
		case in:
			rows = append(rows, l)
		}
	}
	return rows
}

// Filters by field and the copy menu with real Chromium traffic: in the
// Network pane /status>=400 leaves only the 500; a word of its response
// body finds it; Y then c puts a cURL command on the clipboard (OSC 52,
// into tmux's buffer) that gets the same status from the fixture server.
func TestDashboardFilterByFieldAndCopyCURL(t *testing.T) {
	port := freePort(t)
	dash := startDashboardSized(t, 120, 40, port, "dash-filter")
	dash.await(10*time.Second, "127.0.0.1:"+strconv.Itoa(port))
	dash.tmux("set-option", "-g", "set-clipboard", "on")
	site := fixtureServer(t)
	b := launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(port)))
	b.setCapture(t, map[string]any{"network_bodies": true})
	if err := chromedp.Do(b.ctx, chromedp.Navigate(site+"/capture.html")); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	dash.keys("2")
	dash.await(30*time.Second, "/api/fail", "/api/ok?x=1", "/api/xhr")

	dash.keys("/")
	dash.keys("-l", "status>=400")
	dash.keys("Enter")
	dash.await(10*time.Second, `filter "status>=400"`)
	rows := paneRows(dash.screen())
	if len(rows) == 0 {
		t.Fatalf("status>=400 left no rows:\n%s", dash.screen())
	}
	// Every request that failed with a status, the page load's too (the
	// favicon's 404), and nothing else.
	failed := regexp.MustCompile(` ✖ .* [45]\d\d `)
	fail := false
	for _, r := range rows {
		if !failed.MatchString(r) {
			t.Fatalf("status>=400 kept a row that did not fail: %q\n%s", r, dash.screen())
		}
		fail = fail || strings.Contains(r, " 500 ") && strings.Contains(r, "/api/fail")
	}
	if !fail {
		t.Fatalf("status>=400 left out /api/fail:\n%s", dash.screen())
	}

	// "db down" is only in the 500's response body, never on its row.
	dash.keys("Escape") // awaited: an Escape and a key in one read are alt+key
	dash.awaitGone(10*time.Second, "/status>=400 · ")
	dash.keys("/")
	dash.keys("-l", `"db down"`)
	dash.keys("Enter")
	dash.await(10*time.Second, `/"db down" · `) // the filter, in the pane's title
	waitFor(t, 30*time.Second, "the body search to find the 500 alone", func() bool {
		rows := paneRows(dash.screen())
		for _, r := range rows {
			if !strings.Contains(r, "/api/fail") || !strings.Contains(r, " 500 ") {
				return false
			}
		}
		return len(rows) > 0
	})

	dash.keys("Y")
	dash.await(5*time.Second, "cURL", "whole entry as JSON")
	dash.keys("c")
	var curl string
	waitFor(t, 10*time.Second, "the cURL command in tmux's buffer", func() bool {
		out, err := exec.Command("tmux", "-S", dash.socket, "show-buffer").Output()
		curl = string(out)
		return err == nil && strings.HasPrefix(curl, "curl ")
	})
	if !containsAll(curl, "-X 'POST'", site+"/api/fail", "--data-raw") {
		t.Fatalf("the cURL command: %s", curl)
	}
	out, err := exec.Command("sh", "-c", curl+" -s -o /dev/null -w '%{http_code}'").CombinedOutput()
	if err != nil || string(out) != "500" {
		t.Fatalf("%s\ngot %q (%v), want the 500 the page got", curl, out, err)
	}
}

// Where the page navigated or reloaded, the Console and Network panes draw
// a line naming the page, between the old document's entries and the new
// one's.
func TestDashboardMarksNavigation(t *testing.T) {
	dash, b := dashboardWithPage(t, 120, 40, "dash-nav")
	dash.keys("2")
	dash.await(30*time.Second, "/api/fail")
	second := "/capture.html?visit=2"
	if err := chromedp.Do(b.ctx, chromedp.Navigate(strings.TrimSuffix(pageURL(t, b), "/capture.html")+second)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	mark := "── navigated to "
	dash.await(30*time.Second, mark, second+" (tab ")
	rows := paneRows(dash.screen())
	at := -1
	for i, r := range rows {
		if strings.Contains(r, mark) {
			at = i
		}
	}
	if at <= 0 || at == len(rows)-1 {
		t.Fatalf("the navigation line is not between the two pages' requests:\n%s", dash.screen())
	}
	dash.keys("1")
	dash.await(10*time.Second, mark, second+" (tab ")

	// A reload keeps the address: the server's page_left says it.
	if err := chromedp.Do(b.ctx, chromedp.Reload()); err != nil {
		t.Fatalf("reload: %v", err)
	}
	dash.await(30*time.Second, "── reloaded ", second+" (tab ")
}

// pageURL is the tab's address.
func pageURL(t *testing.T, b *browser) string {
	t.Helper()
	u, err := chromedp.Run(b.ctx, chromedp.Evaluate[string]("location.href"))
	if err != nil {
		t.Fatalf("location: %v", err)
	}
	return u
}
