//go:build e2e

package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Issue 46, what the AI reads: Chromium with the real extension makes
// errors and failing requests on the fixture; an AI (gasoline --mcp, an
// mcp-go client) calls observe errors; the dashboard in a real terminal
// shows the call as a dim row of the Audit pane and says "AI read errors
// (N entries)" in its header, beside sparklines that drew the errors. The
// audit file has no read line until the human presses L; then it has.
func TestAIReadsInTmux(t *testing.T) {
	port := freePort(t)
	os.Remove(filepath.Join(testHome, ".gasoline", "decisions-"+strconv.Itoa(port)+".json"))
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	dash := startDashboardSized(t, 120, 40, port, "reads", "--audit-log", auditPath)
	dash.await(20*time.Second, "server in this process", "no AI reads yet")

	site := fixtureServer(t)
	b := launch(t, extensionFor(t, "http://127.0.0.1:"+strconv.Itoa(port)))
	if err := chromedp.Do(b.ctx, chromedp.Navigate(site+"/capture.html")); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	dash.await(20*time.Second, "/capture.html")
	script := `(() => { for (let i = 1; i <= 3; i++) { console.error("read-me-" + i); fetch("/api/fail"); } return true; })()`
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](script)); err != nil {
		t.Fatalf("errors: %v", err)
	}

	ai := mcpStdio(t, port, "claude-code")
	// A read before: its row is not the selected one.
	if _, _, err := callTool(ai, "observe", map[string]any{"what": "page"}); err != nil {
		t.Fatal(err)
	}
	var n int
	waitFor(t, 30*time.Second, "the three errors to reach the server", func() bool {
		out, isErr, err := callTool(ai, "observe", map[string]any{"what": "errors", "limit": 10})
		if err != nil || isErr {
			return false
		}
		c, _ := out["count"].(float64)
		n = int(c)
		return n >= 3
	})
	dash.keys("6")
	row := fmt.Sprintf("read errors · %d entries · limit=10", n)
	dash.await(20*time.Second, "AI ◁ claude-code", row, fmt.Sprintf("AI read errors (%d entries)", n))
	// The client's arrival reached the dashboard before its reads did:
	// the header names it beside them, never "MCP clients: none".
	if head := strings.SplitN(dash.screen(), "\n", 2)[0]; !strings.Contains(head, "claude-code") {
		t.Fatalf("the header does not name the client whose reads it shows: %q", head)
	}
	// Read rows are dim (ANSI 90, the terminal's grey) but for the
	// selected one; the errors' sparkline has a bar above the empty one.
	colour, _ := exec.Command("tmux", "-S", dash.socket, "capture-pane", "-e", "-p", "-t", dash.name).Output()
	dim := 0
	for _, l := range styledLines(string(colour)) {
		if strings.Contains(l.text, "AI ◁ claude-code") && strings.Contains(l.text, "read ") {
			at := l.at(strings.Index(l.text, "AI ◁"))
			if !at.grey && !at.reverse {
				t.Fatalf("a read's row is neither dim nor selected: %q\nthe pane with its escapes:\n%q", l.text, colour)
			}
			if at.grey {
				dim++
			}
		}
	}
	if dim == 0 {
		t.Fatalf("no dim read row:\n%s", colour)
	}
	activity := lineWith(dash.screen(), "err/s ")
	spark := strings.TrimSpace(strings.SplitN(strings.SplitN(activity, "err/s ", 2)[1], " ", 2)[0])
	if strings.Trim(spark, "▁") == "" {
		t.Fatalf("the errors' sparkline drew nothing: %q", activity)
	}

	if got := readLines(t, auditPath, port); got != 0 {
		t.Fatalf("%d read lines in the audit file before the human asked", got)
	}
	dash.keys("L")
	dash.await(10*time.Second, "· in the audit file", "you                  AI reads: written to the audit file too")
	out, _, err := callTool(ai, "observe", map[string]any{"what": "errors"})
	if err != nil {
		t.Fatal(err)
	}
	// The page's own errors may still be arriving: this read's count is its own.
	c, _ := out["count"].(float64)
	n = int(c)
	waitFor(t, 20*time.Second, "a read line in the audit file", func() bool { return readLines(t, auditPath, port) == 1 })
	// The line the file has is not a second row: the stream showed it.
	dash.await(10*time.Second, fmt.Sprintf("read errors · %d entries\n", n))
	if c := strings.Count(dash.screen(), fmt.Sprintf("read errors · %d entries\n", n)); c != 1 {
		t.Fatalf("the read without limit shows %d times:\n%s", c, dash.screen())
	}
}

// sgr is the part of a cell's look the tests read.
type sgr struct{ grey, reverse bool }

// styledLine is one line of `tmux capture-pane -e` without its escapes,
// with the look of each byte of text.
type styledLine struct {
	text  string
	looks []sgr // looks[i] is the look of text[i]
}

func (l styledLine) at(i int) sgr {
	if i < 0 || i >= len(l.looks) {
		return sgr{}
	}
	return l.looks[i]
}

// styledLines reads a capture-pane -e output. tmux writes an escape only
// where the look changes, and carries it across lines: a dim row that
// follows a dim row ending at the last column has no escape of its own.
func styledLines(capture string) []styledLine {
	var out []styledLine
	var cur sgr
	for _, raw := range strings.Split(capture, "\n") {
		var l styledLine
		var text strings.Builder
		for i := 0; i < len(raw); {
			if strings.HasPrefix(raw[i:], "\x1b[") {
				end := strings.IndexByte(raw[i:], 'm')
				if end < 0 {
					break
				}
				cur = cur.apply(raw[i+2 : i+end])
				i += end + 1
				continue
			}
			text.WriteByte(raw[i])
			l.looks = append(l.looks, cur)
			i++
		}
		l.text = text.String()
		out = append(out, l)
	}
	return out
}

// apply is the look after an SGR escape with the parameters params.
func (s sgr) apply(params string) sgr {
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		switch p := ps[i]; p {
		case "", "0":
			s = sgr{}
		case "7":
			s.reverse = true
		case "27":
			s.reverse = false
		case "90":
			s.grey = true
		case "38":
			s.grey = false
			if i+1 < len(ps) && ps[i+1] == "5" {
				// 256-colour 8 is the same grey, as a tmux may write it.
				s.grey = i+2 < len(ps) && ps[i+2] == "8"
				i += 2
			} else if i+1 < len(ps) && ps[i+1] == "2" {
				i += 4
			}
		case "48":
			if i+1 < len(ps) && ps[i+1] == "5" {
				i += 2
			} else if i+1 < len(ps) && ps[i+1] == "2" {
				i += 4
			}
		default:
			if n, err := strconv.Atoi(p); err == nil && (n >= 30 && n <= 39 || n >= 91 && n <= 97) {
				s.grey = false
			}
		}
	}
	return s
}

// lineWith is the first line of screen holding sub.
func lineWith(screen, sub string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// readLines counts the ai_read lines of the server on port in the audit
// file at path.
func readLines(t testing.TB, path string, port int) int {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.Contains(l, `"event":"ai_read"`) && strings.Contains(l, `"name":"observe"`) && strings.Contains(l, `"port":`+strconv.Itoa(port)) {
			n++
		}
	}
	return n
}

// The look tmux carries from a line's end to the next line's start is
// the look of the next line's first cells.
func TestStyledLinesCarryTheLook(t *testing.T) {
	ls := styledLines("\x1b[90maaaa\nbbbb\x1b[0m c\n\x1b[7mdd\x1b[27m\x1b[38;5;90me\x1b[38;5;8mf")
	if !ls[1].at(0).grey || ls[1].at(5).grey {
		t.Fatalf("second line: %+v", ls[1])
	}
	if !ls[2].at(1).reverse || ls[2].at(2).reverse || ls[2].at(2).grey || !ls[2].at(3).grey {
		t.Fatalf("third line: %+v", ls[2])
	}
}
