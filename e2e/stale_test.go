//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// wsConnections is websocket_status's connections by id.
func wsConnections(t testing.TB, ai mcpClient) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	st := observe(t, ai, map[string]any{"what": "websocket_status"})
	cs, _ := st["connections"].([]any)
	for _, c := range cs {
		m := c.(map[string]any)
		out[m["id"].(string)] = m
	}
	return out
}

func openIDs(conns map[string]map[string]any) []string {
	var ids []string
	for id, c := range conns {
		if c["state"] == "open" {
			ids = append(ids, id)
		}
	}
	return ids
}

// Issue 39: a page with an open WebSocket is reloaded; soon after (logged)
// websocket_status shows the old socket closed, with the reason, and only
// the new document's socket open.
func TestReloadClosesThePagesSocket(t *testing.T) {
	r := newRig(t, "stale-agent", map[string]any{"ws_mode": "lifecycle"})
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/capture.html")); err != nil {
		t.Fatal(err)
	}
	var old string
	waitFor(t, 15*time.Second, "the page's socket in websocket_status", func() bool {
		ids := openIDs(wsConnections(t, r.ai))
		if len(ids) == 1 {
			old = ids[0]
		}
		return old != ""
	})
	reloaded := time.Now()
	if err := chromedp.Do(r.b.ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	var conns map[string]map[string]any
	waitFor(t, 15*time.Second, "the reloaded page's socket to close", func() bool {
		conns = wsConnections(t, r.ai)
		return conns[old]["state"] == "closed"
	})
	took := time.Since(reloaded)
	if c := conns[old]; c["code"] != float64(1001) || c["reason"] != "the page was reloaded" {
		t.Errorf("the old socket: %v", c)
	}
	waitFor(t, 15*time.Second, "the new document's socket", func() bool {
		conns = wsConnections(t, r.ai)
		ids := openIDs(conns)
		return len(ids) == 1 && ids[0] != old
	})
	t.Logf("closed %v after the reload; connections: %v", took.Round(time.Millisecond), mustJSON(conns))
}

// The dashboard's WebSocket pane says as much: after two reloads one socket
// is open, and the old ones' rows say why they closed.
func TestDashboardPaneClosesAReloadedPagesSocket(t *testing.T) {
	dash, b := dashboardWithPage(t, 160, 30, "dash-stale-ws")
	dash.keys("3")
	dash.await(15*time.Second, "● open", "1 open: ")
	for i := range 2 {
		if err := chromedp.Do(b.ctx, chromedp.Reload()); err != nil {
			t.Fatal(err)
		}
		// Each document's socket opens before the next reload, so each reload closes one.
		if !wait.Until(15*time.Second, func() bool { return strings.Count(dash.screen(), "● open ") == i+2 }) {
			t.Fatalf("reload %d: the new document's socket did not open:\n%s", i+1, dash.screen())
		}
	}
	// The new document's socket opens after the old ones closed: once both
	// old ones have their row, nothing is left to come, and the pane must
	// say one is open.
	var s string
	if !wait.Until(15*time.Second, func() bool {
		s = dash.screen()
		return strings.Count(s, "code 1001 the page was reloaded") == 2 && strings.Contains(s, "1 open: ")
	}) {
		t.Fatalf("the pane does not settle on two closed sockets and one open:\n%s", s)
	}
}

// Issue 39: the dashboard that hosts the server quits, the AI's relay takes
// the port over, and the page is reloaded: observe page names the tab.
func TestTrackedTabSurvivesATakeover(t *testing.T) {
	port := freePort(t)
	dash := startDashboard(t, port, "stale-tab")
	dash.await(10*time.Second, "server in this process")
	ai := mcpStdio(t, port, "takeover-agent") // relays to the dashboard's server
	b := historyBrowser(t, port)
	tab := health(port)["page"].(map[string]any)["tab"]
	url := health(port)["page"].(map[string]any)["url"]
	dash.keys("q")
	waitFor(t, 10*time.Second, "the dashboard to quit", func() bool { return !dash.alive() })
	aiTries(t, ai, "observe", map[string]any{"what": "health"}) // the relay has taken over
	waitFor(t, 15*time.Second, "the extension to reach the new owner", func() bool {
		h := health(port)
		e, _ := h["extension"].(map[string]any)
		return e != nil && e["connected"] == true
	})
	if err := chromedp.Do(b.ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	var page map[string]any
	waitFor(t, 15*time.Second, "observe page to name the tab", func() bool {
		page = aiTries(t, ai, "observe", map[string]any{"what": "page"})
		return page["tab"] != nil
	})
	if page["tab"] != tab || page["url"] != url {
		t.Fatalf("observe page after the takeover: %v, want tab %v at %v", page, tab, url)
	}
	// A dashboard attached to the new owner shows the tab in its header.
	again := startDashboardSized(t, 200, 30, port, "stale-tab-again")
	again.await(15*time.Second, "attached to a running server", fmt.Sprintf("tab %.0f: %v", tab, url))
	t.Logf("tab %.0f (%v) named by the new owner, port %s", tab, url, strconv.Itoa(port))
}

// The same for a navigation to another page and for a closed tab.
func TestNavigationAndClosedTabCloseTheirSockets(t *testing.T) {
	r := newRig(t, "stale-agent", map[string]any{"ws_mode": "lifecycle"})
	awaitOneOpen := func(ctx context.Context, except ...string) string {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(r.site+"/capture.html")); err != nil {
			t.Fatal(err)
		}
		var id string
		waitFor(t, 15*time.Second, "the page's socket in websocket_status", func() bool {
			ids := openIDs(wsConnections(t, r.ai))
			if len(ids) == 1 && !slices.Contains(except, ids[0]) {
				id = ids[0]
			}
			return id != ""
		})
		return id
	}
	awaitClosed := func(id, reason string) {
		t.Helper()
		var c map[string]any
		waitFor(t, 15*time.Second, "the socket to close: "+reason, func() bool {
			c = wsConnections(t, r.ai)[id]
			return c["state"] == "closed"
		})
		if c["code"] != float64(1001) || c["reason"] != reason {
			t.Fatalf("socket %s: %v, want code 1001 %q", id, c, reason)
		}
	}

	first := awaitOneOpen(r.b.ctx)
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/other.html")); err != nil {
		t.Fatal(err)
	}
	awaitClosed(first, "the page navigated away")

	tab, closeTab := chromedp.NewContext(r.b.ctx)
	second := awaitOneOpen(tab, first)
	closeTab() // closes the tab
	awaitClosed(second, "the tab was closed")
	if ids := openIDs(wsConnections(t, r.ai)); len(ids) != 0 {
		t.Fatalf("open after both pages went away: %v", ids)
	}
}

// The same in Firefox ESR: a reload closes the old page's socket. Firefox
// fires the page's close event (1001) as it unloads, which the page reports
// itself, so the reason may be the page's (none) rather than the worker's.
func TestFirefoxReloadClosesThePagesSocket(t *testing.T) {
	r := newFoxRig(t, "ff-stale-agent", map[string]any{"ws_mode": "lifecycle"})
	r.f.navigate(t, r.f.tab, r.site+"/capture.html")
	var old string
	waitFor(t, 15*time.Second, "the page's socket in websocket_status", func() bool {
		ids := openIDs(wsConnections(t, r.ai))
		if len(ids) == 1 {
			old = ids[0]
		}
		return old != ""
	})
	if _, err := r.f.eval(r.f.tab, `location.reload()`); err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	waitFor(t, 15*time.Second, "the reloaded page's socket to close", func() bool {
		c = wsConnections(t, r.ai)[old]
		return c["state"] == "closed"
	})
	if c["code"] != float64(1001) || (c["reason"] != nil && c["reason"] != "the page was reloaded") {
		t.Fatalf("the old socket: %v", c)
	}
}
