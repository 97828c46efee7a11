package tui

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/doctor"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// Keys that arrive in one read come as one message of several runes; each
// is handled as if typed alone.
func TestKeysArrivingTogether(t *testing.T) {
	m := sampleModel()
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("52")})
	if m.panes.active != paneNetwork {
		t.Fatalf(`"52" in one read: pane %d, want %d`, m.panes.active, paneNetwork)
	}
	m.Update(keyMsg("1"))
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("kk")})
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("kk")})
	r, _ := m.panes.console.Selected()
	if !strings.Contains(r.text, "applying coupon SAVE10") {
		t.Fatalf(`"kk" twice selected %q, want the fifth newest row`, r.text)
	}
	// Once a key opens the filter, the rest of the read is typed into it.
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/Pay")})
	if !m.filter.on || m.panes.console.Filter() != "Pay" {
		t.Fatalf("filtering %v filter %q", m.filter.on, m.panes.console.Filter())
	}
	// The filter shows as typed and matches ignoring case.
	if st := m.panes.console.Status(); !strings.Contains(st, `filter "Pay": 2`) {
		t.Fatalf("status %q", st)
	}
}

// A bracketed paste outside a text input is not keys: it cannot quit.
func TestPasteIsNotKeys(t *testing.T) {
	m := sampleModel()
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("4q"), Paste: true})
	if m.panes.active != paneConsole || cmd == nil {
		t.Fatalf("a paste switched pane to %d", m.panes.active)
	}
	if msg := cmd(); msg != noteMsg("pasted text is not keys: / first to filter by it") {
		t.Fatalf("a paste gave %#v", msg)
	}
}

// A pasted reason for a denial stays whole.
func TestKeysTogetherInATextInputAreTyping(t *testing.T) {
	m := sampleModel()
	m.Update(sampleApproval())
	m.Update(keyMsg("n"))
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("no 52")})
	if got := m.approval.reason.Value(); got != "no 52" || m.panes.active != paneConsole {
		t.Fatalf("reason %q, pane %d", got, m.panes.active)
	}
}

// Esc closes what is open, one thing at a time: the detail, the full
// help, a kept filter.
func TestEscClosesWhatIsOpen(t *testing.T) {
	m := sampleModel()
	m.Update(keyMsg("2"))
	for _, k := range []string{"/", "a", "p", "i", "enter", "?", "up", "enter"} {
		m.Update(keyMsg(k))
	}
	before, _ := m.panes.network.Selected()
	if !m.detail.open || !m.help.ShowAll || m.panes.network.Filter() != "api" {
		t.Fatalf("detail %v help %v filter %q", m.detail.open, m.help.ShowAll, m.panes.network.Filter())
	}
	m.Update(keyMsg("esc"))
	if after, _ := m.panes.network.Selected(); m.detail.open || after.seq != before.seq {
		t.Fatalf("esc: detail %v, selection moved from %q to %q", m.detail.open, before.text, after.text)
	}
	m.Update(keyMsg("esc"))
	if m.help.ShowAll {
		t.Fatal("esc kept the full help")
	}
	m.Update(keyMsg("esc"))
	if m.panes.network.Filter() != "" {
		t.Fatalf("esc kept the filter %q", m.panes.network.Filter())
	}
}

// A key that does nothing in the pane says why, on the status line.
func TestKeysThatDoNothingSayWhy(t *testing.T) {
	for _, tc := range []struct {
		pane, key, want string
	}{
		{"1", "X", "X revoke all in the Overrides pane: press 5"},
		{"2", "a", "a allow again in the Overrides pane: press 5"},
		{"1", "A", "press 6"},
		{"5", "space", "Overrides is live state"},
		{"1", "z", "z does nothing here: ? shows every key"},
	} {
		d := newDriver(t, sampleModel())
		d.press(tc.pane, tc.key)
		d.await(tc.key+" explained", func() bool { return strings.Contains(d.screen(), tc.want) })
	}
}

// The key bar offers space resume while paused.
func TestPausedBarSaysResume(t *testing.T) {
	m := sampleModel()
	if !strings.Contains(m.View(), "space pause") {
		t.Fatal("no space pause")
	}
	m.Update(keyMsg("space"))
	if v := plainView(m.View()); strings.Contains(v, "space pause") || !strings.Contains(v, "space resume") {
		t.Fatalf("paused bar:\n%s", v)
	}
}

// The first frame, before the terminal's size or the server is known,
// shows the dashboard connecting.
func TestFirstFrameSaysConnecting(t *testing.T) {
	m := New(Config{Conn: ConnState{Phase: Connecting, Addr: "127.0.0.1:7891"}})
	v := plainView(m.View())
	if n := strings.Count(v, "\n") + 1; n != 24 || !strings.Contains(v, "connecting to 127.0.0.1:7891…") || !strings.Contains(v, "q quit") {
		t.Fatalf("%d lines:\n%s", n, v)
	}
}

// Off the default port, an extension that does not come within 10 s gets
// the command that points it here.
func TestPortHint(t *testing.T) {
	now := sampleNow
	m := New(Config{Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	m.Update(ConnMsg{Phase: Hosting, Addr: "127.0.0.1:7891"})
	m.Update(StatusMsg(Health{Service: "gasoline"}))
	if v := plainView(m.View()); strings.Contains(v, "gasoline extension DIR") {
		t.Fatalf("hint before 10 s:\n%s", v)
	}
	now = now.Add(11 * time.Second)
	m.Update(StatusMsg(Health{Service: "gasoline"}))
	if v := plainView(m.View()); !strings.Contains(v, "gasoline extension DIR --port 7891") || !strings.Contains(v, "http://127.0.0.1:7891") {
		t.Fatalf("no hint after 10 s:\n%s", v)
	}
	h := Health{Service: "gasoline"}
	h.Extension.Connected = true
	m.Update(StatusMsg(h))
	if v := plainView(m.View()); strings.Contains(v, "gasoline extension DIR") {
		t.Fatalf("hint with the extension connected:\n%s", v)
	}
}

// The pilot's reason for being off, or unknown, follows the extension's state.
func TestPilotTextFollowsTheExtension(t *testing.T) {
	h := Health{Service: "gasoline"}
	h.Extension.Connected = true
	got := plainView(headerView(header{health: &h, pilot: &Pilot{Source: "never_connected", State: "unknown"}}, 200))
	if strings.Contains(got, "no extension") || !strings.Contains(got, "pilot: unknown (not reported yet)") {
		t.Fatalf("%q", got)
	}
	got = plainView(headerView(header{health: &h, pilot: &Pilot{Source: "extension_poll", State: "off"}}, 200))
	if !strings.Contains(got, "pilot: off (the extension's popup turns it on)") {
		t.Fatalf("%q", got)
	}
}

func TestTabHitBoxes(t *testing.T) {
	titles := []string{"Console", "Network", "WebSocket", "Actions", "Overrides (2)", "Audit"}
	bar := plainView(tabsView(titles, 2, "following", 120))
	hits := tabHits(titles, 2, "following", 120)
	for i, title := range titles {
		h := hits[i]
		if got := bar[h.from:h.to]; !strings.Contains(got, title) {
			t.Errorf("tab %d spans %q, want %q", i, got, title)
		}
		if tabAt(hits, h.from) != i || tabAt(hits, h.to-1) != i {
			t.Errorf("tab %d not hit at its edges", i)
		}
	}
	if tabAt(hits, hits[0].to) != -1 || tabAt(hits, 119) != -1 {
		t.Error("a gap or the status hits a tab")
	}
	// Cut by a narrow terminal, a tab is hit only where it shows.
	if narrow := tabHits(titles, 0, "following", 50); narrow[5].from < 50 && narrow[5].to > 50 {
		t.Errorf("the last tab reaches past the screen: %+v", narrow[5])
	}
	// At 80 cells the tabs stay readable words (WebSocket is WS), the
	// state keeps its fact, and the tabs are hit where they are drawn.
	bar = plainView(tabsView(titles, 4, "2 AI override(s) · 1 revoked", 80))
	hits = tabHits(titles, 4, "2 AI override(s) · 1 revoked", 80)
	for i, want := range []string{"1 Console", "2 Network", "3 WS", "4 Actions", "[5 Overrides (2)]", "6 Audit"} {
		if got := string([]rune(bar)[hits[i].from:hits[i].to]); !strings.Contains(got, want) {
			t.Errorf("at 80 cells tab %d spans %q, want %q in:\n%s", i, got, want, bar)
		}
	}
	if strings.Contains(bar, "…") || strings.Contains(bar, "2 AI o") && !strings.Contains(bar, "2 AI override(s)") {
		t.Errorf("the status is cut: %q", bar)
	}
}

func TestMouse(t *testing.T) {
	m := sampleModel()
	hits := tabHits(m.panes.titles(), m.panes.active, m.tabStatus(), m.width)
	m.Update(tea.MouseMsg{X: hits[3].from + 1, Y: tabBarLine, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
	if m.panes.active != paneActions {
		t.Fatalf("a click on Actions: pane %d", m.panes.active)
	}
	m.Update(keyMsg("1"))
	m.Update(tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp})
	if m.panes.console.follow {
		t.Fatal("the wheel did not scroll up")
	}
	r, _ := m.panes.console.Selected()
	m.Update(keyMsg("enter"))
	off := m.detail.vp.YOffset
	m.Update(tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown})
	if m.detail.vp.YOffset < off {
		t.Fatal("the wheel scrolled the detail up")
	}
	if after, _ := m.panes.console.Selected(); after.seq != r.seq {
		t.Fatal("the wheel over the detail moved the pane")
	}
}

// The copy is one OSC 52 sequence carrying the text, wrapped for tmux's
// passthrough inside tmux.
func TestClipboardSequence(t *testing.T) {
	text := "TypeError: x\n    at y"
	b64 := base64.StdEncoding.EncodeToString([]byte(text))
	if got := clipboardSeq(text, false); got != "\x1b]52;c;"+b64+"\x07" {
		t.Fatalf("%q", got)
	}
	raw := "\x1b]52;c;" + b64 + "\x07"
	got := clipboardSeq(text, true)
	if !strings.HasPrefix(got, raw+"\x1bPtmux;\x1b\x1b]52;c;"+b64) || !strings.HasSuffix(got, "\x1b\\") {
		t.Fatalf("tmux: %q", got)
	}
}

func TestCopyWritesTheRowAndTheDetail(t *testing.T) {
	// The copy command writes out on its own goroutine before its message
	// comes back, so out is read only once the screen says it was copied.
	var out strings.Builder
	m := sampleModel()
	m.copy.out = &out
	d := newDriver(t, m)
	d.press("Y", "l") // the copy menu's line as shown
	d.await("the copy", func() bool { return strings.Contains(d.screen(), "copied 51 bytes") })
	r, _ := m.panes.console.Selected()
	if want := clipboardSeq(r.text, false); out.String() != want {
		t.Fatalf("wrote %q, want %q", out.String(), want)
	}
	out.Reset()
	d.press("up", "up", "enter", "Y")
	d.await("the detail's copy", func() bool {
		v := d.screen()
		return strings.Contains(v, "copied ") && !strings.Contains(v, "copied 51 bytes")
	})
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(out.String(), "\x1b]52;c;"), "\x07"))
	if !strings.Contains(string(raw), "at beginWork (http://localhost:3000/node_modules/.vite/deps/react-dom.js:15912:22)") {
		t.Fatalf("the detail's copy lacks the stack: %q", raw)
	}
}

// Enter on a waiting action opens it whole; esc returns to the overlay.
func TestDetailOfAWaitingAction(t *testing.T) {
	m := sampleModel()
	m.Update(sampleApproval())
	m.Update(keyMsg("enter"))
	if !m.detail.open || !strings.Contains(m.detail.text, "const line40") {
		t.Fatal("enter on the overlay did not open the script whole")
	}
	m.Update(keyMsg("esc"))
	if m.detail.open || !strings.Contains(plainView(m.View()), "APPROVE?") {
		t.Fatal("esc did not go back to the overlay")
	}
	_ = wire.Approvals{}
}

// With Connect, the dashboard is drawn before the server is found; a
// failure to host or attach ends it with the reason.
func TestConnectFailureEndsTheDashboard(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	held := errors.New("another program holds 127.0.0.1:9")
	m, done := dial(ctx, Options{Addr: "127.0.0.1:9", Connect: true,
		Takeover: func(context.Context) (bool, error) { return false, held }}, BatchEvery)
	t.Cleanup(func() { cancel(); <-done })
	d := newDriver(t, m)
	if v := d.screen(); !strings.Contains(v, "connecting to 127.0.0.1:9…") {
		t.Fatalf("the first frame:\n%s", v)
	}
	d.await("the failure", func() bool { return errors.Is(m.fatal, held) })
}

// The header shows the doctor's problems, most severe first, from checks
// run off the UI goroutine.
func TestHeaderShowsTheDoctorsProblems(t *testing.T) {
	calls := make(chan struct{}, 10)
	m := sampleModel()
	m.doc.run = func(context.Context) doctor.Report {
		calls <- struct{}{}
		return doctor.Report(sampleDoctor())
	}
	d := newDriver(t, m)
	d.await("the doctor's report", func() bool {
		return strings.Contains(strings.Split(d.screen(), "\n")[2], "✗ extension: connected, but versi… +2 more (D)")
	})
	if got := problemsOf(*m.doc.report); len(got) != 3 || got[0].Name != "extension" || got[1].Name != "audit_log" || got[2].Name != "client:zed" {
		t.Fatalf("problems in order: %+v", got)
	}
	if len(calls) != 1 {
		t.Fatalf("the doctor ran %d times before its next tick", len(calls))
	}
	m.doc.running = true
	if m.doc.start() != nil {
		t.Fatal("a second run started while one runs")
	}
}
