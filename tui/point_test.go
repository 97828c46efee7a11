package tui

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/gasoline-dev/gasoline/server/wire"
)

// samplePointed is the header's state after the human sent the sample's
// failing checkout request with a note; readBy names who read it.
func samplePointed(readBy ...string) PointedMsg {
	return PointedMsg{Newest: &wire.PointedEntry{ID: 1, Kind: "network", Summary: "POST http://localhost:3000/api/checkout → 500",
		Note: "why does checkout fail?", At: "2026-01-24T15:32:08.000Z", ReadBy: readBy}}
}

// TestGoldenPoint draws the note prompt (over a pane and over the detail
// view) and the header before and after an AI read what was sent.
func TestGoldenPoint(t *testing.T) {
	typed := []string{"s", "w", "h", "y", " ", "5", "0", "0", "?"}
	for _, tc := range []struct {
		name string
		keys []string
		msg  tea.Msg
	}{
		{"point_prompt", append([]string{"2", "up", "up", "up"}, typed...), nil},
		{"point_prompt_detail", append([]string{"2", "up", "up", "up", "enter"}, typed...), nil},
		{"point_unread", []string{"2"}, samplePointed()},
		{"point_read", []string{"2"}, samplePointed("cursor", "claude-code")},
	} {
		for _, size := range goldenSizes {
			w, h := size[0], size[1]
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, w, h), func(t *testing.T) {
				m := sampleModelAt(w, h)
				for _, k := range tc.keys {
					m.Update(keyMsg(k))
				}
				if tc.msg != nil {
					m.Update(tc.msg)
				}
				got := plainView(m.View())
				if n := strings.Count(got, "\n") + 1; n != h {
					t.Errorf("%d lines, want %d", n, h)
				}
				for i, l := range strings.Split(got, "\n") {
					if lw := lipgloss.Width(l); lw > w {
						t.Errorf("line %d is %d cells wide, past %d: %q", i+1, lw, w, l)
					}
				}
				golden(t, fmt.Sprintf("pane_%s_%dx%d", tc.name, w, h), got)
			})
		}
	}
}

// pointServer records the points it is sent.
func pointServer(t *testing.T) (*Client, <-chan wire.Point) {
	got := make(chan wire.Point, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/point" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var p wire.Point
		_ = json.Unmarshal(b, &p)
		got <- p
		fmt.Fprint(w, `{"newest":{"id":1,"kind":"`+p.Kind+`","summary":"x","note":`+mustQuote(p.Note)+`,"at":"2026-01-24T15:32:10.000Z"},"streamed":1}`)
	}))
	t.Cleanup(srv.Close)
	return NewClient(srv.URL), got
}

func mustQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// run feeds the model the message a command makes, as bubbletea would.
func run(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if msg := cmd(); msg != nil {
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				run(m, c)
			}
			return
		}
		m.Update(msg)
	}
}

// `s` sends the selected row with the typed note on enter, without one on
// esc, from the panes and from the detail view; the header says it was sent.
func TestSendRowToAI(t *testing.T) {
	for _, tc := range []struct {
		name, kind, want string
		keys             []string
		note             string
		end              string
	}{
		{"network with a note", "network", `"url":"http://localhost:3000/api/checkout"`, []string{"2", "up", "up", "up"}, "why 500?", "enter"},
		{"network from the detail, esc", "network", `"url":"http://localhost:3000/api/checkout"`, []string{"2", "up", "up", "up", "enter"}, "typed then dropped", "esc"},
		{"console error", "error", `"level":"error"`, []string{"up", "up"}, "", "enter"},
		{"websocket", "websocket", `"id":"` + sampleWSID + `"`, []string{"3", "up", "up"}, "", "enter"},
		{"action", "action", `"type":`, []string{"4", "up", "up"}, "", "enter"},
		{"audit", "audit", `"event":`, []string{"6", "up"}, "", "enter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := sampleModel()
			c, got := pointServer(t)
			m.client = c
			for _, k := range tc.keys {
				m.Update(keyMsg(k))
			}
			m.Update(keyMsg("s"))
			if !m.point.on || !strings.Contains(plainView(m.View()), "s note for the AI:") {
				t.Fatal("no prompt")
			}
			for _, r := range tc.note {
				m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			}
			_, cmd := m.Update(keyMsg(tc.end))
			run(m, cmd)
			var p wire.Point
			select {
			case p = <-got:
			default:
				t.Fatal("nothing sent")
			}
			wantNote := tc.note
			if tc.end == "esc" {
				wantNote = ""
			}
			if p.Kind != tc.kind || p.Note != wantNote || !strings.Contains(string(p.Entry), tc.want) {
				t.Fatalf("sent %s %q %s", p.Kind, p.Note, p.Entry)
			}
			if m.point.on || !strings.Contains(plainView(m.View()), "sent to AI") {
				t.Fatalf("after sending:\n%s", plainView(m.View()))
			}
		})
	}
}

// A row that is not something captured is not sent.
func TestSendRefusesOtherRows(t *testing.T) {
	m := sampleModel()
	c, got := pointServer(t)
	m.client = c
	m.Update(keyMsg("5"))
	m.Update(keyMsg("s"))
	if m.point.on || len(got) != 0 {
		t.Fatal("an override row opened the prompt")
	}
}

// Issue 58 row 13: S clears the board on the server; the header's "sent
// to AI" goes with the stream's empty pointed event.
func TestClearSentToAI(t *testing.T) {
	cleared := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cleared <- r.Method + " " + r.URL.Path
		fmt.Fprint(w, `{"cleared":"pointed","entries":1}`)
	}))
	t.Cleanup(srv.Close)
	m := sampleModel()
	m.client = NewClient(srv.URL)
	m.Update(samplePointed("newcomer-ai"))
	_, cmd := m.Update(keyMsg("S"))
	run(m, cmd)
	select {
	case got := <-cleared:
		if got != "POST /api/point/clear" {
			t.Fatalf("sent %s", got)
		}
	default:
		t.Fatal("S sent nothing")
	}
	if v := plainView(m.View()); !strings.Contains(v, "cleared what was sent to the AI (1 entries)") {
		t.Fatalf("no note:\n%s", v)
	}
	m.Update(PointedMsg{})
	if v := plainView(m.View()); strings.Contains(v, "sent to AI") {
		t.Fatalf("the header still says it was sent:\n%s", v)
	}
}
