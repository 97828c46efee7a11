package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/doctor"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// healthOf is a doctor.Server that answers with the dashboard's own
// status: the header and the doctor read one source.
type healthOf StatusMsg

func (h healthOf) Health(context.Context) (doctor.Health, error) {
	var d doctor.Health
	d.Service, d.Version, d.Clients = "gasoline", h.Version, h.Clients
	d.Extension.Connected = h.Extension.Connected
	if h.Pilot != nil {
		d.Pilot.Enabled = h.Pilot.Enabled
	}
	return d, nil
}

// truthDoctor runs the real doctor against the sample's status, with no
// client configured by gasoline setup.
func truthDoctor(m *Model) DoctorMsg {
	in := doctor.Inputs{Port: 7890, DefaultPort: 7890, Version: "0.1.0", Server: healthOf(*m.health),
		Writable: func(string) error { return nil }}
	return DoctorMsg(doctor.Run(context.Background(), in))
}

// Each state of the table at the three sizes: what each line
// says is true beside the others (goldens truth_*), and the words that
// matter are there at every width.
func TestGoldenTruths(t *testing.T) {
	long := "checkout payload " + strings.Repeat("x", 4700)
	for _, tc := range []struct {
		name string
		do   func(m *Model)
		want []string // at every size
		not  []string
	}{
		{"clients_agree", func(m *Model) {
			m.Update(truthDoctor(m))
			m.Update(keyMsg("D"))
		}, []string{"claude-code, cursor", "clients: connected: claude-code, cursor", "pilot: on", "No problems found."}, []string{"no MCP client", "!"}},
		{"pilot_off", func(m *Model) {
			m.Update(PilotMsg{Source: "extension_poll", State: "off", ExtensionConnected: true})
		}, []string{"extension: ● connected", "pilot: off"}, nil},
		{"override_in_pane", func(m *Model) {
			m.Update(keyMsg("5"))
			m.Update(keyMsg("down"))
		}, []string{"AI claude-code set log_level → all · x here revokes the selected row"}, []string{"· x revoke "}},
		{"notice_under_load", func(m *Model) {
			m.Update(batchMsg{EntriesMsg{Skipped: 484}})
		}, []string{"484"}, nil},
		{"notice_after_load", func(m *Model) {
			m.Update(batchMsg{EntriesMsg{Skipped: 484}})
			m.now = func() time.Time { return sampleNow.Add(time.Second) }
		}, []string{"484 passed over"}, []string{"passing events over"}},
		{"cleared", func(m *Model) { m.Update(keyMsg("c")) }, []string{"Cleared this view: 20 earlier entries hidden (c brings them back)"}, nil},
		{"restored", func(m *Model) { m.Update(keyMsg("c")); m.Update(keyMsg("c")) }, []string{"retrying in 2s"}, []string{"Cleared"}},
		{"navigation", func(m *Model) {
			m.Update(batchMsg{EntriesMsg{Network: []capture.NetworkEntry{
				{TS: at(1), Method: "GET", URL: "http://localhost:3000/api/cart", Status: 200, TabID: 412, Page: "http://localhost:3000/cart"},
				{TS: at(2), Method: "GET", URL: "http://localhost:3000/api/pay", Status: 200, TabID: 412, Page: "http://localhost:3000/pay"},
			}}})
			m.Update(keyMsg("2"))
		}, []string{"── navigated to http://localhost:3000/pay (tab 412) ──"}, nil},
		{"cut_message", func(m *Model) {
			m.Update(batchMsg{EntriesMsg{Logs: []capture.LogEntry{{TS: at(1), Level: "error", Message: long}}}})
			m.Update(keyMsg("up"))
		}, []string{" chars, Enter)", "checkout payload xxx"}, nil},
	} {
		for _, size := range goldenSizes {
			w, h := size[0], size[1]
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, w, h), func(t *testing.T) {
				m := sampleModelAt(w, h)
				tc.do(m)
				got := plainView(m.View())
				if n := strings.Count(got, "\n") + 1; n != h {
					t.Errorf("%d lines, want %d", n, h)
				}
				for i, l := range strings.Split(got, "\n") {
					if lw := lipgloss.Width(l); lw > w {
						t.Errorf("line %d is %d cells wide, past %d: %q", i+1, lw, w, l)
					}
				}
				for _, s := range tc.want {
					if !strings.Contains(got, s) {
						t.Errorf("no %q:\n%s", s, got)
					}
				}
				for _, s := range tc.not {
					if strings.Contains(got, s) {
						t.Errorf("%q:\n%s", s, got)
					}
				}
				golden(t, fmt.Sprintf("truth_%s_%dx%d", tc.name, w, h), got)
			})
		}
	}
}

// The cut row's length is what the row leaves out of the entry.
func TestCutRowSaysHowMuchIsLeftOut(t *testing.T) {
	msg := strings.Repeat("y", 5000)
	r := consoleRow(capture.LogEntry{Level: "log", Message: msg})
	got := cutRow(r, 100, false)
	shown := strings.Count(got, "y")
	want := fmt.Sprintf("… (+%s chars, Enter)", thousands(5000-shown))
	if !strings.HasSuffix(got, want) || lipgloss.Width(got) > 100 {
		t.Fatalf("%q (%d cells), want it to end %q", got, lipgloss.Width(got), want)
	}
	if thousands(4312) != "4,312" || thousands(1234567) != "1,234,567" || thousands(12) != "12" {
		t.Fatal(thousands(4312), thousands(1234567))
	}
	// A row that fits is written as it is.
	if r := consoleRow(capture.LogEntry{Level: "log", Message: "short"}); cutRow(r, 100, false) != r.styled {
		t.Fatal("a short row was changed")
	}
}

// The notice of events passed over goes when they stop being passed over:
// a redraw is due when it expires, and the count stays, dim.
func TestPassedOverNoticeExpires(t *testing.T) {
	m := sampleModelAt(200, 60)
	now := sampleNow
	m.now = func() time.Time { return now }
	_, cmd := m.Update(batchMsg{EntriesMsg{Skipped: 484}})
	if cmd == nil {
		t.Fatal("no redraw is due when the notice expires")
	}
	if v := plainView(m.View()); !strings.Contains(v, "passing events over under load: 484 so far") {
		t.Fatalf("no notice under load:\n%s", v)
	}
	now = now.Add(lostFor - time.Millisecond)
	if v := plainView(m.View()); !strings.Contains(v, "passing events over") {
		t.Fatalf("the notice went while its cause may go on:\n%s", v)
	}
	now = now.Add(2 * time.Millisecond)
	if v := plainView(m.View()); strings.Contains(v, "passing events over") || !strings.Contains(v, "484 passed over under load") {
		t.Fatalf("the notice outlived its cause, or the count went:\n%s", v)
	}
}

// A segment another feature adds shows on its line and gives up its room
// before the header's own fields.
func TestHeaderSegmentsGiveWayFirst(t *testing.T) {
	m := sampleModelAt(200, 60)
	hd := header{conn: m.conn, health: m.health, pilot: m.pilot, aiNote: m.aiNote(),
		segments: []segment{{line: 3, forms: part{"AI read errors (3 entries) 2s ago", "AI read 2s ago", ""}},
			{line: 2, forms: part{"pointed: button#pay"}}}}
	wide := plainView(headerView(hd, 200))
	if !strings.Contains(wide, "AI read errors (3 entries) 2s ago") || !strings.Contains(strings.Split(wide, "\n")[1], "pointed: button#pay") {
		t.Fatalf("the segments are not shown:\n%s", wide)
	}
	narrow := strings.Split(plainView(headerView(hd, 80)), "\n")
	if strings.Contains(narrow[2], "AI read errors") || !strings.Contains(narrow[2], "AI claude-code set log_level → all · x revoke") {
		t.Fatalf("at 80 the segment kept its room before the override line:\n%s", strings.Join(narrow, "\n"))
	}
	if !strings.Contains(narrow[1], "extension: ● connected") {
		t.Fatalf("at 80 a segment took the extension's state:\n%s", strings.Join(narrow, "\n"))
	}
}

// The line where the page changed: a reload (the server's page_left) marks
// the new document's first entry; a late entry of the old one gets none;
// another page is one line, whether or not page_left came first.
func TestNavigationMarks(t *testing.T) {
	n := navMarks{}
	var got []string
	entry := func(sec float64, page string) {
		if r, ok := n.next(at(sec), 7, page); ok {
			got = append(got, fmt.Sprintf("%g %s", sec, r.text[13:]))
		}
	}
	n.leave(wire.PageLeft{Tab: 7, Reason: "navigation", TS: at(0)}) // from about:blank
	entry(1, "http://a/cart")
	entry(2, "http://a/cart")
	n.leave(wire.PageLeft{Tab: 7, Reason: "reload", TS: at(5)})
	entry(4, "http://a/cart") // the old document's, late
	entry(6, "http://a/cart")
	entry(7, "http://a/cart")
	entry(8, "http://a/pay") // a route change, no page_left
	n.leave(wire.PageLeft{Tab: 7, Reason: "navigation", TS: at(10)})
	entry(11, "http://b/")
	want := []string{"6 ── reloaded http://a/cart (tab 7) ──", "8 ── navigated to http://a/pay (tab 7) ──", "11 ── navigated to http://b/ (tab 7) ──"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("marks %q, want %q", got, want)
	}
}
