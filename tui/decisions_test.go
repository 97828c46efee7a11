package tui

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/gasoline-dev/gasoline/server"
	"github.com/gasoline-dev/gasoline/server/wire"
)

const sampleKept = "/home/dev/.gasoline/decisions-7890.json.unreadable-20260124T153000Z"

// sampleUnreadable is the status of a server that could not read the
// human's decisions at start.
func sampleUnreadable(m *Model) {
	h := *m.health
	h.Decisions = &wire.Decisions{Unreadable: "decode decisions /home/dev/.gasoline/decisions-7890.json: unexpected end of JSON input",
		Kept: sampleKept}
	m.Update(StatusMsg(h))
}

// Issue 41: the header says the decisions could not be read (or saved),
// and the prompt covers the panes until the human answers or puts it off.
func TestGoldenDecisions(t *testing.T) {
	for _, tc := range []struct {
		name string
		prep func(m *Model)
	}{
		{"decisions_unreadable", sampleUnreadable},
		{"decisions_later", func(m *Model) { sampleUnreadable(m); m.Update(keyMsg("esc")) }},
		{"decisions_not_saved", func(m *Model) {
			h := *m.health
			h.Decisions = &wire.Decisions{SaveError: "save decisions: rename /home/dev/.gasoline/decisions-7890.json: is a directory"}
			m.Update(StatusMsg(h))
		}},
	} {
		for _, size := range goldenSizes {
			w, h := size[0], size[1]
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, w, h), func(t *testing.T) {
				m := sampleModelAt(w, h)
				tc.prep(m)
				got := plainView(m.View())
				if n := strings.Count(got, "\n") + 1; n != h {
					t.Errorf("%d lines, want %d", n, h)
				}
				for i, l := range strings.Split(got, "\n") {
					if lw := lipgloss.Width(l); lw > w {
						t.Errorf("line %d is %d cells wide, past %d: %q", i+1, lw, w, l)
					}
				}
				header := strings.Join(strings.SplitN(got, "\n", 4)[:3], "\n")
				switch tc.name {
				case "decisions_not_saved":
					if !strings.Contains(header, "✗ decisions not saved") {
						t.Errorf("header:\n%s", header)
					}
				default:
					if !strings.Contains(header, "AI held · R") && !strings.Contains(header, "✗ decisions · R") {
						t.Errorf("header:\n%s", header)
					}
				}
				if prompt := strings.Contains(got, "YOUR DECISIONS COULD NOT BE READ"); prompt != (tc.name == "decisions_unreadable") {
					t.Errorf("prompt shown: %v", prompt)
				}
				golden(t, fmt.Sprintf("pane_%s_%dx%d", tc.name, w, h), got)
			})
		}
	}
}

// The prompt's keys go to the real server: n starts from nothing, the hold
// lifts, the audit says the human did it; esc puts the prompt off and R
// brings it back.
func TestRecoverKeysLiftTheHold(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	state := filepath.Join(dir, "decisions.json")
	os.WriteFile(state, []byte(`{"revoked":`), 0o600)
	s := server.New(server.Config{Version: "test", Port: ln.Addr().(*net.TCPAddr).Port, AuditLog: filepath.Join(dir, "audit.jsonl"),
		TokenFile: filepath.Join(dir, "human.token"), StateFile: state})
	tokenFiles.Store(ln.Addr().String(), filepath.Join(dir, "human.token"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })

	d := attach(t, ln.Addr().String(), nil)
	d.await("the prompt", func() bool { return strings.Contains(d.screen(), "YOUR DECISIONS COULD NOT BE READ") })
	d.press("esc")
	d.await("the prompt put off", func() bool {
		return !strings.Contains(d.screen(), "YOUR DECISIONS COULD NOT BE READ") && strings.Contains(d.screen(), "AI held · R")
	})
	d.press("R")
	d.await("the prompt back", func() bool { return strings.Contains(d.screen(), "YOUR DECISIONS COULD NOT BE READ") })
	d.press("f")
	d.await("the kept file still unreadable", func() bool { return strings.Contains(d.screen(), "still cannot be read") })
	if s.Health().Decisions == nil {
		t.Fatal("the hold lifted on a file that does not read")
	}
	d.press("n")
	d.await("the hold lifted", func() bool {
		return strings.Contains(d.screen(), "started from no decisions") && !strings.Contains(d.screen(), "AI held")
	})
	if h := s.Health().Decisions; h != nil {
		t.Fatalf("server still holds: %+v", h)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if !strings.Contains(string(b), `"event":"decisions_recovered"`) {
		t.Fatalf("audit:\n%s", b)
	}
}
