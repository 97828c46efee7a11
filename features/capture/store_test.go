package capture

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func ts(sec int) Time { return Time{time.Unix(1700000000+int64(sec), 0)} }

// What an action says of its target is kept only in the form a generated
// test reads: a role is a lowercase word, a container only when the role
// and name were not unique, a source only "ai"; its texts are scrubbed.
func TestActionTargetFields(t *testing.T) {
	s := NewStore()
	within := &Scope{Role: "listitem", Text: "Pears token=abcdef1234567890"}
	s.AddActions([]Action{
		{Type: "click", Role: "button", Name: "Add", Matches: 3, Within: within, Source: "ai"},
		{Type: "click", Role: "button')", Matches: 2, Within: &Scope{Selector: "#cart"}, Source: "human"},
		{Type: "click", Role: "link", Matches: 1, Within: &Scope{Selector: "#nav"}},
		{Type: "click", Role: "button", Matches: 5000},
	})
	as := s.Actions(Query{}).Entries
	slices.Reverse(as)
	if a := as[0]; a.Role != "button" || a.Source != "ai" || a.Within == nil || a.Within.Text != "Pears token=[redacted]" {
		t.Errorf("kept: %+v %+v", a, a.Within)
	}
	if a := as[1]; a.Role != "" || a.Matches != 0 || a.Within != nil || a.Source != "" {
		t.Errorf("a role that is no word: %+v", a)
	}
	if a := as[2]; a.Within != nil {
		t.Errorf("a unique role and name with a container: %+v", a.Within)
	}
	if a := as[3]; a.Matches != maxMatches {
		t.Errorf("matches %d", a.Matches)
	}
}

func TestRingKeepsNewestAndCursorReturnsOnlyNew(t *testing.T) {
	s := NewStore()
	for i := range LogCap + 10 {
		s.AddLogs([]LogEntry{{TS: ts(i), Level: "log", Message: "m" + itoa(i)}})
	}
	r := s.Logs(Query{Limit: 3})
	if got := []string{r.Entries[0].Message, r.Entries[1].Message, r.Entries[2].Message}; strings.Join(got, ",") != "m1009,m1008,m1007" {
		t.Fatalf("newest first: got %v", got)
	}
	if r.More != LogCap-3 {
		t.Fatalf("more = %d, want %d", r.More, LogCap-3)
	}
	s.AddLogs([]LogEntry{{Level: "warn", Message: "new"}})
	r2 := s.Logs(Query{After: r.Cursor})
	if len(r2.Entries) != 1 || r2.Entries[0].Message != "new" || r2.Entries[0].TS.IsZero() {
		t.Fatalf("after cursor: %+v", r2.Entries)
	}
	if r3 := s.Logs(Query{After: r2.Cursor}); len(r3.Entries) != 0 {
		t.Fatalf("nothing new expected, got %d", len(r3.Entries))
	}
}

func TestAllReadsTheWholeBuffer(t *testing.T) {
	s := NewStore()
	for i := range LogCap + 10 {
		s.AddLogs([]LogEntry{{TS: ts(i), Level: "log", Message: "m" + itoa(i)}})
	}
	if n := len(s.Logs(Query{Limit: MaxLimit + 1}).Entries); n != MaxLimit {
		t.Fatalf("a client's limit is capped at %d, got %d", MaxLimit, n)
	}
	r := s.Logs(Query{All: true, Limit: 3})
	if len(r.Entries) != LogCap || r.More != 0 || r.Entries[LogCap-1].Message != "m10" {
		t.Fatalf("all: %d entries, more %d", len(r.Entries), r.More)
	}
}

func TestCursorFromEarlierProcessHidesNothing(t *testing.T) {
	start := time.Now()
	old := newStoreAt(start)
	old.AddLogs([]LogEntry{{Level: "log", Message: "a"}, {Level: "log", Message: "b"}})
	cur := old.Logs(Query{}).Cursor
	s := newStoreAt(start.Add(time.Millisecond)) // a process started later
	s.AddLogs([]LogEntry{{Level: "log", Message: "fresh"}})
	if r := s.Logs(Query{After: cur}); len(r.Entries) != 1 {
		t.Fatalf("stale cursor hid new entries: %+v", r)
	}
}

func TestErrorsSurviveALogFlood(t *testing.T) {
	s := NewStore()
	s.AddLogs([]LogEntry{{Level: "error", Kind: "exception", Message: "boom"}})
	for range 2 * LogCap {
		s.AddLogs([]LogEntry{{Level: "log", Message: "noise"}})
	}
	if r := s.Errors(Query{}); len(r.Entries) != 1 || r.Entries[0].Message != "boom" {
		t.Fatalf("errors: %+v", r.Entries)
	}
}

func TestRejectsBadEntriesKeepsGoodOnes(t *testing.T) {
	s := NewStore()
	n, rej := s.AddLogs([]LogEntry{{Level: "log", Message: "ok"}, {Level: "loud", Message: "x"}, {Level: "error", Kind: "weird"}})
	if n != 1 || len(rej) != 2 || rej[0].Index != 1 || !strings.Contains(rej[0].Error, "debug, log, info, warn, error") {
		t.Fatalf("n=%d rej=%+v", n, rej)
	}
	n, rej = s.AddWSEvents([]WSEvent{{Event: "message", ID: "c"}, {Event: "open"}})
	if n != 0 || len(rej) != 2 {
		t.Fatalf("ws n=%d rej=%+v", n, rej)
	}
}

func TestLevelFilter(t *testing.T) {
	s := NewStore()
	for _, l := range []string{"debug", "log", "info", "warn", "error"} {
		s.AddLogs([]LogEntry{{Level: l, Message: l}})
	}
	if r := s.Logs(Query{Level: "warn"}); len(r.Entries) != 2 {
		t.Fatalf("warn+: %+v", r.Entries)
	}
}

func TestNetworkFilters(t *testing.T) {
	s := NewStore()
	s.AddNetwork([]NetworkEntry{
		{Method: "get", URL: "http://x/api/ok", Status: 200},
		{Method: "POST", URL: "http://x/api/fail", Status: 500},
		{Method: "GET", URL: "http://x/app.js", Status: 404},
	})
	cases := []struct {
		q    Query
		want int
	}{
		{Query{}, 3},
		{Query{URL: "/api/"}, 2},
		{Query{Method: "GET"}, 2},
		{Query{StatusMin: 400}, 2},
		{Query{StatusMin: 400, StatusMax: 499}, 1},
	}
	for _, c := range cases {
		if got := len(s.Network(c.q).Entries); got != c.want {
			t.Errorf("%+v: got %d, want %d", c.q, got, c.want)
		}
	}
}

func TestBodiesAreTruncatedAndSecretsStripped(t *testing.T) {
	s := NewStore()
	big := strings.Repeat("é", MaxResponseBody) // multi-byte: never split a rune
	s.AddBodies([]NetworkBody{{
		Method: "GET", URL: "http://x/a", ResponseBody: big, RequestBody: "small",
		RequestHeaders:  map[string]string{"Authorization": "Bearer t", "X-Api-Key": "k", "X-CSRF-Token": "c", "Accept": "json", "Cookie": "a=b"},
		ResponseHeaders: map[string]string{"Set-Cookie": "s=1", "Content-Type": "text/plain"},
	}, {Method: "GET", URL: "http://x/img", ContentType: "image/png", ResponseBody: "\x89PNG...."}})
	r := s.Bodies(Query{})
	img, b := r.Entries[0], r.Entries[1]
	if len(b.ResponseBody) > MaxResponseBody || !b.Truncated || !strings.HasSuffix(b.ResponseBody, "é") {
		t.Fatalf("truncation: len=%d truncated=%v", len(b.ResponseBody), b.Truncated)
	}
	wantReq := map[string]string{"accept": "json", "authorization": "[redacted]", "x-api-key": "[redacted]", "x-csrf-token": "[redacted]", "cookie": "[redacted]"}
	wantResp := map[string]string{"set-cookie": "[redacted]", "content-type": "text/plain"}
	if !maps.Equal(b.RequestHeaders, wantReq) || !maps.Equal(b.ResponseHeaders, wantResp) {
		t.Fatalf("headers: %v %v", b.RequestHeaders, b.ResponseHeaders)
	}
	if img.ResponseBody != "[Binary: 8 bytes, type: image/png]" {
		t.Fatalf("binary: %q", img.ResponseBody)
	}
}

func TestWebSocketLimitsAndConnections(t *testing.T) {
	s := NewStore()
	s.AddWSEvents([]WSEvent{{Event: "open", ID: "a", URL: "ws://x/a", TS: ts(0)}})
	s.AddWSEvents([]WSEvent{{Event: "message", ID: "a", Direction: "outgoing", Data: strings.Repeat("x", 5000), TS: ts(1)}})
	s.AddWSEvents([]WSEvent{{Event: "message", ID: "a", Direction: "incoming", Data: "hi", TS: ts(2)}})
	msgs := s.WSEvents(Query{Direction: "outgoing"}).Entries
	if len(msgs) != 1 || len(msgs[0].Data) != MaxWSData || !msgs[0].Truncated || msgs[0].Size != 5000 {
		t.Fatalf("outgoing: %+v", msgs)
	}
	for i := range WSConnCap + 5 {
		s.AddWSEvents([]WSEvent{{Event: "open", ID: "c" + itoa(i), URL: "ws://x", TS: ts(10 + i)}})
	}
	conns := s.WSConnections(Query{})
	if len(conns) != WSConnCap {
		t.Fatalf("conns = %d, want %d", len(conns), WSConnCap)
	}
	if c := s.WSConnections(Query{ConnectionID: "a"}); len(c) != 0 {
		t.Fatalf("oldest connection should be evicted: %+v", c)
	}
	for range WSEventCap {
		s.AddWSEvents([]WSEvent{{Event: "message", ID: "c24", Direction: "incoming", Data: "x"}})
	}
	if r := s.WSEvents(Query{Limit: MaxLimit}); r.Total != WSEventCap {
		t.Fatalf("ring holds %d", r.Total)
	}
	c := s.WSConnections(Query{ConnectionID: "c24"})[0]
	if c.In != WSEventCap || c.State != "open" {
		t.Fatalf("c24: %+v", c)
	}
}

func TestPasswordValuesNeverStored(t *testing.T) {
	s := NewStore()
	s.AddActions([]Action{
		{Type: "input", Selector: "#pw", InputType: "password", Value: "hunter2"},
		{Type: "input", Selector: "input[name=\"password\"]", InputType: "text", Value: "hunter2"},
		{Type: "input", Selector: "#name", InputType: "text", Value: "Ada"},
	})
	r := s.Actions(Query{})
	if r.Entries[0].Value != "Ada" || r.Entries[1].Value != "" || r.Entries[2].Value != "" {
		t.Fatalf("values: %+v", r.Entries)
	}
}

func TestClear(t *testing.T) {
	s := NewStore()
	s.AddLogs([]LogEntry{{Level: "error", Message: "e"}})
	s.AddActions([]Action{{Type: "click"}})
	if err := s.Clear("logs"); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st[KindLogs].Count != 0 || st[KindErrors].Count != 1 || st[KindActions].Count != 1 {
		t.Fatalf("stats: %+v", st)
	}
	if err := s.Clear("nope"); err == nil || !strings.Contains(err.Error(), "valid:") {
		t.Fatalf("want error naming valid buffers, got %v", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := NewStore()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 500 {
				s.AddLogs([]LogEntry{{Level: "log", Message: itoa(w*1000 + i)}})
				s.Logs(Query{Limit: 5})
				s.AddWSEvents([]WSEvent{{Event: "open", ID: itoa(w*1000 + i)}})
				s.WSConnections(Query{})
			}
		})
	}
	wg.Wait()
	if s.Stats()[KindLogs].Count != LogCap {
		t.Fatalf("count: %+v", s.Stats()[KindLogs])
	}
}

func TestTimeAcceptsMillisAndRFC3339(t *testing.T) {
	var a, b Time
	if err := a.UnmarshalJSON([]byte("1700000000123")); err != nil {
		t.Fatal(err)
	}
	if err := b.UnmarshalJSON([]byte(`"2023-11-14T22:13:20.123Z"`)); err != nil {
		t.Fatal(err)
	}
	if !a.Equal(b.Time) {
		t.Fatalf("%v != %v", a, b)
	}
	out, _ := a.MarshalJSON()
	if string(out) != `"2023-11-14T22:13:20.123Z"` {
		t.Fatalf("render: %s", out)
	}
	if err := a.UnmarshalJSON([]byte(`"yesterday"`)); err == nil {
		t.Fatal("want error for a bad time")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestSubscribeSeesStoredEntriesOnly(t *testing.T) {
	s := NewStore()
	var got []Event
	s.Subscribe(func(e Event) { got = append(got, e) })
	s.AddLogs([]LogEntry{{Level: "log", Message: "a"}, {Level: "loud"}})
	s.AddWSEvents([]WSEvent{{Event: "open", ID: "c"}})
	if len(got) != 2 || got[0].Kind != KindLogs || got[0].Entry.(LogEntry).Message != "a" || got[1].Kind != KindWSEvents || got[1].Seq <= got[0].Seq {
		t.Fatalf("%+v", got)
	}
}

func TestStackDoesNotRepeatTheMessage(t *testing.T) {
	s := NewStore()
	s.AddLogs([]LogEntry{
		{Level: "error", Kind: "exception", Message: "Uncaught TypeError: x is undefined", Stack: "TypeError: x is undefined\n    at f (a.js:1:2)"},
		{Level: "error", Message: "boom", Stack: "    at g (b.js:3:4)\n    at h (b.js:5:6)"},
		{Level: "error", Message: "other", Stack: "RangeError: too deep\n    at k (c.js:1:1)"},
	})
	e := s.Errors(Query{}).Entries
	if e[2].Stack != "    at f (a.js:1:2)" || e[1].Stack != "    at g (b.js:3:4)\n    at h (b.js:5:6)" || e[0].Stack != "RangeError: too deep\n    at k (c.js:1:1)" {
		t.Fatalf("%q | %q | %q", e[2].Stack, e[1].Stack, e[0].Stack)
	}
}

// A tab's document goes away (reload, navigation, closed tab): its open
// sockets close with code 1001 and the reason, as close events the AI and
// the dashboard read; sockets of other tabs and of the new document stay
// open; an old document's socket reported late is closed as it arrives.
func TestSocketsOfAGonePageClose(t *testing.T) {
	s := NewStore()
	s.AddWSEvents([]WSEvent{
		{Event: "open", ID: "old", URL: "ws://x/live", TS: ts(0), TabID: 5},
		{Event: "open", ID: "other", URL: "ws://x/live", TS: ts(1), TabID: 6},
		{Event: "open", ID: "shut", URL: "ws://x/live", TS: ts(1), TabID: 5},
		{Event: "close", ID: "shut", Code: 1000, TS: ts(2), TabID: 5},
	})
	if n := s.PageLeft(5, ts(4), "the page was reloaded"); n != 1 {
		t.Fatalf("closed %d, want 1", n)
	}
	s.AddWSEvents([]WSEvent{{Event: "open", ID: "new", URL: "ws://x/live", TS: ts(5), TabID: 5}})
	// Held back by the old page's worker batch, its second socket arrives last.
	s.AddWSEvents([]WSEvent{{Event: "open", ID: "late", URL: "ws://x/feed", TS: ts(3), TabID: 5}})
	state := map[string]WSConnection{}
	for _, c := range s.WSConnections(Query{}) {
		state[c.ID] = c
	}
	for id, want := range map[string]string{"old": "closed", "late": "closed", "shut": "closed", "other": "open", "new": "open"} {
		if state[id].State != want {
			t.Errorf("%s: %+v, want %s", id, state[id], want)
		}
	}
	if c := state["old"]; c.Code != CodeGoingAway || c.Reason != "the page was reloaded" || c.Closed == nil || !c.Closed.Equal(ts(4).Time) {
		t.Errorf("old: %+v", c)
	}
	if c := state["shut"]; c.Code != 1000 {
		t.Errorf("a socket the page closed keeps its own code: %+v", c)
	}
	var closes []string
	for _, e := range s.WSEvents(Query{Limit: MaxLimit}).Entries {
		if e.Event == "close" && e.Code == CodeGoingAway {
			closes = append(closes, e.ID+" "+e.Reason)
		}
	}
	if strings.Join(closes, ",") != "late the page was reloaded,old the page was reloaded" {
		t.Errorf("close events: %q", closes)
	}
	if n := s.PageLeft(5, ts(4), "again"); n != 0 {
		t.Errorf("closed %d twice", n)
	}
	if n := s.PageLeft(7, ts(3), "a tab with no sockets"); n != 0 {
		t.Errorf("closed %d of a tab with none", n)
	}
}

// Issue 58 row 12: a socket the page watched without its messages
// (ws_mode lifecycle) says its counts are not counts, also once its page
// left; a message seen later counts from then on.
func TestWebSocketCountsSayWhenNotCounted(t *testing.T) {
	s := NewStore()
	s.AddWSEvents([]WSEvent{{Event: "open", ID: "a", URL: "ws://x/a", TS: ts(0), Messages: "off", TabID: 3},
		{Event: "open", ID: "b", URL: "ws://x/b", TS: ts(0), Messages: "bogus", TabID: 4}})
	by := func() map[string]WSConnection {
		out := map[string]WSConnection{}
		for _, c := range s.WSConnections(Query{}) {
			out[c.ID] = c
		}
		return out
	}
	if c := by(); c["a"].Messages != NotCounted || c["b"].Messages != "" {
		t.Fatalf("after open: %+v", c)
	}
	s.PageLeft(3, ts(5), "the page navigated away")
	if c := by()["a"]; c.State != "closed" || c.Messages != NotCounted {
		t.Fatalf("after the page left: %+v", c)
	}
	s.AddWSEvents([]WSEvent{{Event: "open", ID: "c", URL: "ws://x/c", TS: ts(6), Messages: "off"},
		{Event: "message", ID: "c", Direction: "incoming", Data: "hi", TS: ts(7)}})
	if c := by()["c"]; c.Messages != "" || c.In != 1 {
		t.Fatalf("after a message: %+v", c)
	}
}
