package tui

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
)

func TestReadStreamDecodesEveryEvent(t *testing.T) {
	stream := strings.Join([]string{
		`: a comment`,
		`event: status`,
		`data: {"service":"gasoline","version":"1.2","pilot":{"enabled":true,"source":"extension_poll","blocked_by_user":true}}`,
		``,
		`event: overrides`,
		`data: {"settings":[{"name":"ws_mode","default":"lifecycle","value":"messages","agent":"claude-code","changed_at":"2026-01-24T15:30:00Z"}]}`,
		``,
		`event: entry`,
		`data: {"kind":"logs","seq":1,"entry":{"ts":1769268600000,"level":"error","message":"boom"}}`,
		``,
		`event: entry`,
		`data: {"kind":"errors","seq":1,"entry":{"level":"error","message":"boom"}}`,
		``,
		`event: entry`,
		`data: {"kind":"actions","seq":2,"entry":{"type":"click","selector":"#pay"}}`,
		``,
		`event: entry`,
		`data: {"kind":"websocket_events","seq":3,`,
		`data: "entry":{"event":"open","id":"ws-1"}}`,
		``,
		`event: dropped`,
		`data: {"count":7}`,
		``,
		`event: pilot`,
		`data: {"enabled":false,"source":"stale"}`,
		``,
		`event: streamed`,
		`data: {"agent":"claude-code","severity":"error","message":"Server error: POST /api/users → 500","timestamp":"2026-01-24T15:30:00Z"}`,
		``,
		`event: status`,
		`data: not json`,
		``,
	}, "\n")
	var got []tea.Msg
	beats := 0
	err := readStream(strings.NewReader(stream), func(m tea.Msg) { got = append(got, m) }, func() { beats++ })
	if err != errStreamEnded {
		t.Fatalf("err %v", err)
	}
	if len(got) != 8 || beats == 0 {
		t.Fatalf("%d messages, %d beats: %#v", len(got), beats, got)
	}
	if s := got[0].(StatusMsg); s.Version != "1.2" || s.Pilot == nil || !s.Pilot.BlockedByUser {
		t.Errorf("status %+v", s)
	}
	if o := got[1].(OverridesMsg); len(o.Settings) != 1 || !o.Settings[0].Overridden() || o.Settings[0].Agent != "claude-code" {
		t.Errorf("overrides %+v", o)
	}
	if e := got[2].(seqEntry); e.kind != "logs" || e.seq != 1 || len(e.entry.Logs) != 1 || e.entry.Logs[0].Message != "boom" {
		t.Errorf("log entry %+v", e)
	}
	if e := got[3].(seqEntry); len(e.entry.Actions) != 1 || e.entry.Actions[0].Selector != "#pay" {
		t.Errorf("action %+v", e)
	}
	if e := got[4].(seqEntry); len(e.entry.WS) != 1 || e.entry.WS[0].ID != "ws-1" {
		t.Errorf("multi-line data %+v", e)
	}
	if d := got[5].(DroppedMsg); d.Count != 7 {
		t.Errorf("dropped %+v", d)
	}
	if p := got[6].(PilotMsg); p.Enabled || p.Source != "stale" {
		t.Errorf("pilot %+v", p)
	}
	if s := got[7].(StreamedMsg); s.Agent != "claude-code" || s.Message != "Server error: POST /api/users → 500" {
		t.Errorf("streamed %+v", s)
	}
}

// A reconnect's backlog repeats entries; each kind's sequence tells them.
func TestDedupPerKind(t *testing.T) {
	d := dedup{}
	for _, tc := range []struct {
		kind string
		seq  uint64
		want bool
	}{{"logs", 10, true}, {"logs", 11, true}, {"network", 5, true}, {"logs", 11, false}, {"logs", 3, false}, {"network", 6, true}} {
		if got := d.fresh(seqEntry{kind: tc.kind, seq: tc.seq}); got != tc.want {
			t.Errorf("%s %d: fresh %v", tc.kind, tc.seq, got)
		}
	}
}

func TestHeaderSaysWhatThePilotIs(t *testing.T) {
	for _, tc := range []struct {
		p    *Pilot
		want string
	}{
		{nil, "pilot: unknown"},
		{&Pilot{Enabled: true}, "pilot: enabled"},
		{&Pilot{Enabled: true, BlockedByUser: true}, "pilot: BLOCKED by you"},
		{&Pilot{Source: "never_connected", State: "unknown"}, "pilot: unknown (no extension)"},
		{&Pilot{Source: "stale", State: "unknown"}, "pilot: unknown (extension silent)"},
		{&Pilot{Source: "stale"}, "pilot: unknown (extension silent)"},
		{&Pilot{Source: "extension_poll", State: "off"}, "pilot: off"},
	} {
		if got := plainView(headerView(header{conn: ConnState{Phase: Attached, Addr: "127.0.0.1:7890"}, pilot: tc.p}, 200)); !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %q lacks %q", tc.p, got, tc.want)
		}
	}
	reconnecting := plainView(headerView(header{conn: ConnState{Phase: Reconnecting, Addr: "127.0.0.1:7890", Err: fmt.Errorf("EOF")}}, 200))
	if !strings.Contains(reconnecting, "RECONNECTING (EOF)") {
		t.Errorf("%q", reconnecting)
	}
}

// Page-controlled text never reaches the terminal as control sequences.
func TestRowsAreSafeForTheTerminal(t *testing.T) {
	r := consoleRow(capture.LogEntry{Level: "log", Message: "a\x1b]0;pwned\x07b\nc\u009bd\u2028e", Args: []string{"\x1b[2J"}})
	if strings.ContainsFunc(r.text, func(c rune) bool { return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' }) {
		t.Fatalf("control characters in %q", r.text)
	}
	long := networkRow(capture.NetworkEntry{Method: "GET", Status: 200, URL: strings.Repeat("é", 5000)})
	if n := len([]rune(long.text)); n > maxRowText+60 {
		t.Fatalf("row of %d runes", n)
	}
}

func lines(n int, prefix string) []row {
	out := make([]row, n)
	for i := range out {
		out[i] = newRow(plain, fmt.Sprintf("%s %04d", prefix, i))
	}
	return out
}

// A stream follows new rows; scrolled up, it keeps the rows in view still
// (even as old ones scroll out of the bound); end follows again.
func TestStreamFollowsUnlessScrolled(t *testing.T) {
	p := newStreamPane("T", "HEAD", "empty")
	p.SetSize(40, 11) // ten rows
	p.add(lines(PaneLines, "old"))
	p.sync()
	if v := plainView(p.View()); !strings.Contains(v, "old 0999") {
		t.Fatalf("not following:\n%s", v)
	}
	p.Update(keyMsg("pgup"))
	p.Update(keyMsg("up"))
	if p.follow || !strings.Contains(p.Status(), "end to follow") {
		t.Fatalf("still following after scrolling up: %s", p.Status())
	}
	before := plainView(p.View())
	p.add(lines(5, "new"))
	p.sync()
	if after := plainView(p.View()); after != before {
		t.Fatalf("the view moved while scrolled:\n%s\n---\n%s", before, after)
	}
	p.Update(keyMsg("end"))
	p.add(lines(1, "newest"))
	p.sync()
	if v := plainView(p.View()); !p.follow || !strings.HasSuffix(strings.TrimSpace(v), "newest 0000") {
		t.Fatalf("end does not follow again:\n%s", v)
	}
	p.Update(keyMsg("c"))
	p.sync()
	if v := plainView(p.View()); p.matched != 0 || !strings.Contains(v, "Cleared this view: 1000") {
		t.Fatalf("c did not clear:\n%s", v)
	}
	// c again brings the rows back; a new row after a clear shows alone.
	p.Update(keyMsg("c"))
	p.sync()
	if v := plainView(p.View()); p.matched != 1000 || !strings.HasSuffix(strings.TrimSpace(v), "newest 0000") {
		t.Fatalf("c again did not restore (%d shown):\n%s", p.matched, v)
	}
	p.Update(keyMsg("c"))
	p.add(lines(1, "after"))
	p.sync()
	if p.matched != 1 || p.shown[0].text != "after 0000" {
		t.Fatalf("after a clear: %d shown", p.matched)
	}
}

func TestStreamFilterAndPause(t *testing.T) {
	p := newStreamPane("T", "HEAD", "empty")
	p.SetSize(40, 11)
	p.add([]row{newRow(plain, "GET /api/cart"), newRow(bad, "POST /API/pay 500"), newRow(plain, "GET /logo.png")})
	p.SetFilter("api")
	p.sync()
	if v := plainView(p.View()); strings.Contains(v, "logo") || !strings.Contains(v, "/API/pay") {
		t.Fatalf("filter:\n%s", v)
	}
	p.SetFilter("nothing-like-it")
	p.sync()
	if v := plainView(p.View()); !strings.Contains(v, `nothing matches "nothing-like-it"`) {
		t.Fatalf("empty filter result:\n%s", v)
	}
	p.SetFilter("")
	p.Update(keyMsg("space"))
	p.add(lines(3, "held"))
	p.sync()
	if p.rows.len() != 3 || p.Status() != "PAUSED · 3 new" {
		t.Fatalf("paused: %d rows, %q", p.rows.len(), p.Status())
	}
	p.Update(keyMsg("space"))
	p.sync()
	if got := rowTexts(p); len(got) != 6 || got[5] != "held 0002" {
		t.Fatalf("after resuming: %v", got)
	}
}

// The filter key opens a text input for the active pane; esc drops it.
func TestFilterKeys(t *testing.T) {
	m := sampleModel()
	for _, k := range []string{"/", "q", "x"} { // q types, it does not quit
		m.Update(keyMsg(k))
	}
	if !m.filter.on || m.panes.console.Filter() != "qx" {
		t.Fatalf("filtering %v filter %q", m.filter.on, m.panes.console.Filter())
	}
	m.Update(keyMsg("esc"))
	if m.filter.on || m.panes.console.Filter() != "" {
		t.Fatalf("esc kept the filter %q", m.panes.console.Filter())
	}
	_, cmd := m.Update(keyMsg("q"))
	if cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q does not quit")
	}
}

func TestLogSinkRoutesLinesWhileTheDashboardRuns(t *testing.T) {
	var stderr bytes.Buffer
	s := NewLogSink(&stderr)
	fmt.Fprintln(s, "before")
	var got []tea.Msg
	s.attach(func(m tea.Msg) { got = append(got, m) })
	fmt.Fprint(s, "gasoline: extension ")
	fmt.Fprint(s, "connected\nhalf")
	s.detach()
	fmt.Fprintln(s, "after")
	if !slices.Equal(got, []tea.Msg{LogMsg("gasoline: extension connected")}) || stderr.String() != "before\nhalf\nafter\n" {
		t.Fatalf("dashboard got %v, stderr %q", got, stderr.String())
	}
}

// Issue 58 row 8: the WebSocket pane counts open sockets as the store
// does: a socket its page's navigation closed (1001) stays closed when its
// last messages arrive after the close; one first seen by a message is open.
func TestWSPaneCountsAsTheStore(t *testing.T) {
	p := newWSPane()
	p.SetSize(120, 10)
	p.addEvents([]capture.WSEvent{
		{TS: at(1), ID: "a", Event: "open", URL: "ws://shop/chat"},
		{TS: at(1), ID: "b", Event: "open", URL: "ws://shop/feed"},
		{TS: at(3), ID: "a", Event: "close", Code: 1001, Reason: "the page navigated away"},
		{TS: at(2), ID: "a", Event: "message", Direction: "incoming", Data: "hi"},
		{TS: at(2), ID: "c", Event: "message", Direction: "incoming", Data: "seen late"},
	})
	head := strings.SplitN(plainView(p.View()), "\n", 2)[0]
	if !strings.HasPrefix(head, "2 open: b ws://shop/feed (0 msgs) · c") {
		t.Fatalf("header %q", head)
	}
}

// Issue 58 row 7: at 80 columns the Network pane drops time, size and
// took before it cuts a URL; at 120 it shows every column.
func TestNetworkPaneDropsColumnsBeforeTheURL(t *testing.T) {
	for _, tc := range []struct {
		w          int
		want, lack string
	}{
		{80, "✖ POST       500 -       http://localhost:3000/api/checkout\n", "TOOK"},
		{120, "TOOK  URL", "(+"},
	} {
		m := sampleModelAt(tc.w, 24)
		m.Update(keyMsg("2"))
		v := plainView(m.View())
		if !strings.Contains(v, tc.want) || strings.Contains(v, tc.lack) {
			t.Errorf("%d columns:\n%s", tc.w, v)
		}
	}
}

// Issue 58 row 15: the WebSocket and Audit panes list rows in time order,
// whatever order they arrived in: a close the server made when the page
// left comes before the page's last messages; a read recorded as it ended
// after an action that came later.
func TestPanesInTimeOrder(t *testing.T) {
	ws := newWSPane()
	ws.SetSize(120, 10)
	ws.addEvents([]capture.WSEvent{
		{TS: at(1), ID: "a", Event: "open", URL: "ws://shop/chat"},
		{TS: at(3), ID: "a", Event: "close", Code: 1001},
		{TS: at(2.87), ID: "a", Event: "message", Direction: "incoming", Data: "last words"},
	})
	ws.sync()
	v := plainView(ws.View())
	if w, c := strings.Index(v, "last words"), strings.Index(v, "○ close"); w < 0 || c < 0 || w > c {
		t.Errorf("the close is listed before the message it followed:\n%s", v)
	}

	m := sampleModelAt(120, 40)
	m.Update(batchMsg{AuditMsg{Path: "/a.jsonl", Lines: []audit.Line{
		auditLine(audit.Event{TS: "2026-01-24T15:40:14.175Z", Event: "interact", Action: "click", Selector: "#late", Result: "ok", Source: "ai", Agent: "cursor"}),
	}}})
	m.Update(ReadMsg{At: time.Date(2026, 1, 24, 15, 40, 14, 170e6, time.UTC), Tool: "observe", Mode: "errors", Agent: "cursor", Bytes: 9, Port: 7890})
	m.Update(keyMsg("6"))
	v = plainView(m.View())
	if r, c := strings.Index(v, "AI ◁ cursor"), strings.Index(v, "#late"); r < 0 || c < 0 || r > c {
		t.Errorf("the read at .170 is not above the click at .175:\n%s", v)
	}
}
