//go:build e2e

package e2e

import (
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// tmux runs a tmux command on the dashboard's server.
func (tm *term) tmux(args ...string) {
	tm.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-S", tm.socket}, args...)...).CombinedOutput(); err != nil {
		tm.t.Fatalf("tmux %v: %v %s", args, err, out)
	}
}

// awaitGone waits until the screen shows none of needles.
func (tm *term) awaitGone(within time.Duration, needles ...string) {
	tm.t.Helper()
	var s string
	if !wait.Until(within, func() bool {
		s = tm.screen()
		return !slices.ContainsFunc(needles, func(n string) bool { return strings.Contains(s, n) })
	}) {
		tm.t.Fatalf("timed out after %v waiting for %q to go; the screen:\n%s", within, needles, s)
	}
}

// dashboardWithPage is a dashboard hosting the server in a w×h tmux window,
// and Chromium with the real extension on the capture fixture, its tab
// tracked by the dashboard.
func dashboardWithPage(t *testing.T, w, h int, name string) (*term, *browser) {
	port := freePort(t)
	dash := startDashboardSized(t, w, h, port, name)
	dash.await(10*time.Second, "127.0.0.1:"+strconv.Itoa(port))
	site := fixtureServer(t)
	b := launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(port)))
	if err := chromedp.Do(b.ctx, chromedp.Navigate(site+"/capture.html")); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	dash.await(15*time.Second, "/capture.html")
	return dash, b
}

// At 80×24 the key line keeps help and quit, the header the tracked tab;
// a long console error opens whole, message and stack, and esc leaves it;
// keys typed in one write each count.
func TestDashboardSmallTerminalDetailAndFastKeys(t *testing.T) {
	dash, b := dashboardWithPage(t, 80, 24, "dash-small")
	screen := dash.screen()
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if len(lines) != 24 || !strings.Contains(lines[23], "? help") || !strings.Contains(lines[23], "q quit") {
		t.Fatalf("the key line lost help or quit at 80×24:\n%s", screen)
	}
	if !regexp.MustCompile(`tab \d+: (http://)?127\.0\.0\.1:\d+/capture\.html`).MatchString(lines[1]) {
		t.Fatalf("the header lost the tracked tab at 80×24:\n%s", screen)
	}

	// A long error thrown two named frames deep.
	var msg []string
	for i := 1; i <= 30; i++ {
		msg = append(msg, "seg"+strconv.Itoa(i))
	}
	long := "checkout exploded " + strings.Join(msg, " ") + " ENDMARK42"
	script := `(() => {
		function deepFrameAlpha(m) { throw new Error(m); }
		function outerFrameBeta(m) { deepFrameAlpha(m); }
		setTimeout(() => outerFrameBeta(` + strconv.Quote(long) + `), 0);
		return true; })()`
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](script)); err != nil {
		t.Fatalf("throw: %v", err)
	}
	dash.await(10*time.Second, "checkout exploded", " chars, Enter)") // cut, saying by how much
	// Keep only that row, then open it; the window grows so it fits whole.
	dash.keys("/")
	dash.keys("-l", "ENDMARK42")
	dash.keys("Enter")
	dash.tmux("resize-window", "-t", dash.name, "-x", "120", "-y", "40")
	dash.keys("Enter")
	dash.await(5*time.Second, "── message ──", "checkout exploded seg1 ", " seg30 ENDMARK42", "── stack ──", "deepFrameAlpha", "outerFrameBeta")
	// Y copies the whole detail over OSC 52, which tmux (set-clipboard on)
	// keeps in its paste buffer.
	dash.tmux("set-option", "-g", "set-clipboard", "on")
	dash.keys("Y")
	dash.await(5*time.Second, "copied ")
	waitFor(t, 5*time.Second, "the detail in tmux's buffer", func() bool {
		out, err := exec.Command("tmux", "-S", dash.socket, "show-buffer").Output()
		return err == nil && containsAll(string(out), long, "deepFrameAlpha", "outerFrameBeta")
	})
	dash.keys("Escape")
	dash.awaitGone(5*time.Second, "── stack ──")
	dash.await(5*time.Second, "TIME           LEVEL", `filter "ENDMARK42": 1`)

	dash.keys("-l", "52")
	dash.await(5*time.Second, "[2 Network]")
}

// The WebSocket pane fits the extension's 36-character connection ids:
// the SOCKET column cuts them with …, the DATA column stays in place, and
// the line of open connections names them whole.
func TestDashboardWebSocketIDs(t *testing.T) {
	dash, _ := dashboardWithPage(t, 120, 30, "dash-ws")
	dash.keys("3")
	dash.await(10*time.Second, "● open", "1 open: ")
	uuid := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	screen := dash.screen()
	id := uuid.FindString(screen)
	if id == "" {
		t.Fatalf("no 36-character connection id on the screen:\n%s", screen)
	}
	head, row := "", ""
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "TIME") {
			head = l
		}
		if strings.Contains(l, "● open") {
			row = l
		}
	}
	data := strings.Index(head, "DATA") // the titles are ASCII: bytes are cells
	cells := []rune(row)                // ● and … are one cell each
	if data < 0 || len(cells) < data || !strings.Contains(row, id[:12]+"…") || !strings.HasPrefix(string(cells[data:]), "ws://") {
		t.Fatalf("the open row does not keep its columns (DATA at %d):\n%s\n%s", data, head, row)
	}
	for _, l := range strings.Split(screen, "\n") {
		if n := len([]rune(l)); n > 120 {
			t.Fatalf("a line of %d cells:\n%s", n, l)
		}
	}
}
