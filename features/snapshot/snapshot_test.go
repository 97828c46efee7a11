package snapshot

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
)

const page = "http://localhost:3000/dashboard"

func logs(level string, msgs ...string) []capture.LogEntry {
	out := make([]capture.LogEntry, len(msgs))
	for i, m := range msgs {
		out[i] = capture.LogEntry{Level: level, Message: m, Page: page}
	}
	return out
}

func req(method, url string, status int, ms float64) capture.NetworkEntry {
	return capture.NetworkEntry{Method: method, URL: url, Status: status, DurationMS: ms, Page: page}
}

func newStore(t testing.TB) *capture.Store {
	t.Helper()
	s := capture.NewStore()
	s.SetPage(capture.Page{TabID: 1, URL: page})
	return s
}

func TestTakeGroupsAndNormalises(t *testing.T) {
	s := newStore(t)
	s.AddLogs(logs("error", "Cannot read property 'user' of undefined at line 42",
		"Failed to load resource", "Cannot read property 'user' of undefined at line 45"))
	s.AddLogs(logs("warn", "Deprecated API", "Deprecated API"))
	s.AddLogs(logs("log", "hello"))
	s.AddNetwork([]capture.NetworkEntry{
		req("POST", "http://localhost:3000/api/login?attempt=1", 500, 100),
		req("POST", "http://localhost:3000/api/login?attempt=2", 500, 200),
		req("POST", "http://localhost:3000/api/login?attempt=3", 200, 300),
		req("GET", "http://localhost:3000/api/me", 401, 10),
		{Method: "GET", URL: "http://localhost:3000/api/down", Failed: true, Error: "net::ERR_CONNECTION_REFUSED"},
		{Method: "GET", URL: "http://localhost:3000/api/left", Aborted: true},
		req("GET", "https://cdn.example.com/lib.js?v=3", 200, 40),
	})
	got := NewReader(s, nil, nil).Take(Window{})

	wantErrors := []Issue{{"Cannot read property 'user' of undefined at line [n]", 2, ""}, {"Failed to load resource", 1, ""}}
	if fmt.Sprint(got.Errors) != fmt.Sprint(wantErrors) {
		t.Errorf("errors = %v, want %v", got.Errors, wantErrors)
	}
	if fmt.Sprint(got.Warnings) != fmt.Sprint([]Issue{{"Deprecated API", 2, ""}}) {
		t.Errorf("warnings = %v", got.Warnings)
	}
	byKey := map[string]Endpoint{}
	for _, e := range got.Endpoints {
		byKey[e.key()] = e
	}
	if e := byKey["POST /api/login"]; e.Status != 200 || e.Calls != 3 || e.DurationMS != 200 || e.Failing() {
		t.Errorf("login endpoint = %+v, want newest status 200, 3 calls, mean 200 ms", e)
	}
	if e := byKey["GET /api/down"]; e.Error != "net::ERR_CONNECTION_REFUSED" || !e.Failing() || e.Label() != "GET /api/down → net::ERR_CONNECTION_REFUSED" {
		t.Errorf("failed request = %+v (%s)", e, e.Label())
	}
	if e := byKey["GET /api/left"]; e.Failing() {
		t.Errorf("an aborted request counts as failing: %+v", e)
	}
	if _, ok := byKey["GET cdn.example.com/lib.js"]; !ok {
		t.Errorf("cross-origin request not keyed by host + path: %v", got.Endpoints)
	}
	if got.Requests != 7 || len(got.Endpoints) != 5 {
		t.Errorf("requests %d endpoints %d, want 7 and 5", got.Requests, len(got.Endpoints))
	}
	sum := got.Summary()
	want := Summary{CapturedAt: got.CapturedAt, ConsoleErrors: 3, ConsoleWarnings: 2, NetworkRequests: 7, NetworkErrors: 2, UniqueEndpoints: 5, PageURL: page}
	if fmt.Sprint(sum) != fmt.Sprint(want) {
		t.Errorf("summary = %+v\nwant %+v", sum, want)
	}
}

func TestTakeLimits(t *testing.T) {
	t.Run("50 console entries, errors first", func(t *testing.T) {
		s := newStore(t)
		s.AddLogs(logs("error", strings.Split(strings.Repeat("e,", 30), ",")[:30]...))
		s.AddLogs(logs("warn", strings.Split(strings.Repeat("w,", 40), ",")[:40]...))
		got := NewReader(s, nil, nil).Take(Window{})
		if got.ErrorCount() != 30 || got.Summary().ConsoleWarnings != 20 {
			t.Fatalf("errors %d warnings %d, want 30 and 20", got.ErrorCount(), got.Summary().ConsoleWarnings)
		}
	})
	t.Run("newest 50 errors", func(t *testing.T) {
		s := newStore(t)
		s.AddLogs(logs("error", strings.Split(strings.Repeat("e,", 80), ",")[:80]...))
		if n := NewReader(s, nil, nil).Take(Window{}).ErrorCount(); n != MaxConsole {
			t.Fatalf("errors %d, want %d", n, MaxConsole)
		}
	})
	t.Run("newest 100 requests, all counted", func(t *testing.T) {
		s := newStore(t)
		var n []capture.NetworkEntry
		for i := range 150 {
			n = append(n, req("GET", fmt.Sprintf("http://localhost:3000/r/x%c%c", 'a'+i/26, 'a'+i%26), 200, 1))
		}
		s.AddNetwork(n)
		got := NewReader(s, nil, nil).Take(Window{})
		if got.Requests != 150 || len(got.Endpoints) != MaxNetwork {
			t.Fatalf("requests %d endpoints %d, want 150 and %d", got.Requests, len(got.Endpoints), MaxNetwork)
		}
		if got.Endpoints[0].URL != "/r/xft" { // 149 = 5*26+19: the newest
			t.Fatalf("first endpoint %q, want the newest", got.Endpoints[0].URL)
		}
	})
}

func TestTakeURLFilter(t *testing.T) {
	s := newStore(t)
	s.AddLogs([]capture.LogEntry{{Level: "error", Message: "on checkout", Page: "http://localhost:3000/checkout"}})
	s.AddLogs(logs("error", "on dashboard"))
	s.AddNetwork([]capture.NetworkEntry{req("GET", "http://localhost:3000/checkout/api", 500, 1), req("GET", "http://localhost:3000/api/other", 500, 1)})
	s.AddWSEvents([]capture.WSEvent{{Event: "open", ID: "1", URL: "ws://localhost:3000/checkout/ws"}, {Event: "open", ID: "2", URL: "ws://localhost:3000/feed"}})
	got := NewReader(s, nil, nil).Take(Window{URLFilter: "checkout"})
	if len(got.Errors) != 1 || got.Errors[0].Message != "on checkout" {
		t.Errorf("errors %v", got.Errors)
	}
	if len(got.Endpoints) != 1 || got.Endpoints[0].URL != "/checkout/api" {
		t.Errorf("endpoints %v", got.Endpoints)
	}
	if len(got.WebSockets) != 1 || got.WebSockets[0].URL != "/checkout/ws" {
		t.Errorf("websockets %v", got.WebSockets)
	}
}

func TestTakeWindowSeesOnlyWhatFollowsTheCursor(t *testing.T) {
	s := newStore(t)
	s.AddLogs(logs("error", "before"))
	s.AddNetwork([]capture.NetworkEntry{req("GET", "http://localhost:3000/a", 500, 1)})
	r := NewReader(s, nil, nil)
	cur := r.Cursor()
	if got := r.Take(Window{After: cur}); got.Events != 0 || len(got.Errors) != 0 || len(got.Endpoints) != 0 {
		t.Fatalf("empty window: events %d errors %v endpoints %v", got.Events, got.Errors, got.Endpoints)
	}
	s.AddLogs(logs("log", "just a log"))
	if got := r.Take(Window{After: cur}); got.Events != 1 || len(got.Errors) != 0 {
		t.Fatalf("a log is activity but no error: events %d errors %v", got.Events, got.Errors)
	}
	s.AddLogs(logs("error", "after"))
	s.AddNetwork([]capture.NetworkEntry{req("GET", "http://localhost:3000/a", 200, 1)})
	got := r.Take(Window{After: cur})
	if fmt.Sprint(got.Errors) != "[{after 1 }]" || len(got.Endpoints) != 1 || got.Endpoints[0].Status != 200 || got.Events != 3 {
		t.Fatalf("window: events %d errors %v endpoints %v", got.Events, got.Errors, got.Endpoints)
	}
}

func TestTakeWebSockets(t *testing.T) {
	s := newStore(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) capture.Time { return capture.Time{Time: t0.Add(d)} }
	s.AddWSEvents([]capture.WSEvent{
		{TS: at(0), Event: "open", ID: "old", URL: "ws://localhost:3000/feed"},
		{TS: at(time.Second), Event: "close", ID: "old", Code: 1006},
		{TS: at(2 * time.Second), Event: "open", ID: "new", URL: "ws://localhost:3000/feed"},
		{TS: at(3 * time.Second), Event: "message", ID: "new", Direction: "incoming"},
		{TS: at(12 * time.Second), Event: "message", ID: "new", Direction: "outgoing"},
		{TS: at(0), Event: "open", ID: "c", URL: "wss://push.example.com/live"},
		{TS: at(time.Second), Event: "error", ID: "c"},
	})
	got := NewReader(s, nil, nil).Take(Window{})
	want := []WSConn{{URL: "/feed", State: "open", MessageRate: 0.2}, {URL: "push.example.com/live", State: "error"}}
	if fmt.Sprint(got.WebSockets) != fmt.Sprint(want) {
		t.Fatalf("websockets = %v, want %v", got.WebSockets, want)
	}
}

func TestTakePerformance(t *testing.T) {
	s := newStore(t)
	watch := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	cls := 0.123456
	var asked string
	measured := perf.Performance{LoadTime: 1100.4, FCP: 300.6, CLS: &cls, RequestCount: 12, TransferSize: 340000, At: watch.Add(-time.Second)}
	latest := func(filter string) (perf.Performance, bool) { asked = filter; return measured, true }
	r := NewReader(s, latest, nil)

	if got := r.Take(Window{URLFilter: "/dash"}); got.Performance == nil || asked != "/dash" {
		t.Fatalf("performance %v, filter passed %q", got.Performance, asked)
	} else if b, _ := json.Marshal(got.Performance); string(b) != `{"load_time":1100,"fcp":301,"cls":0.123,"request_count":12,"transfer_size":340000}` {
		t.Fatalf("performance JSON %s", b)
	}
	if got := r.Take(Window{Since: watch}); got.Performance != nil {
		t.Fatalf("a load measured before the window counted: %+v", got.Performance)
	}
	measured.At = watch.Add(time.Second)
	if got := r.Take(Window{Since: watch}); got.Performance == nil {
		t.Fatal("a load measured in the window was dropped")
	}
	if got := NewReader(s, func(string) (perf.Performance, bool) { return perf.Performance{}, false }, nil).Take(Window{}); got.Performance != nil {
		t.Fatal("performance without a measurement")
	}
}

func TestMatch(t *testing.T) {
	before := []Issue{{"a", 1, ""}, {"b", 2, ""}}
	after := []Issue{{"c", 1, ""}, {"b", 3, ""}}
	var got []string
	for _, p := range MatchIssues(before, after) {
		got = append(got, fmt.Sprintf("%v/%v", p.Before, p.After))
	}
	if want := "[&{a 1 }/<nil> &{b 2 }/&{b 3 } <nil>/&{c 1 }]"; fmt.Sprint(got) != want {
		t.Fatalf("pairs %v, want %s", got, want)
	}
}

// An issue says where its newest occurrence was thrown, as locate places it.
func TestIssuesSayWhere(t *testing.T) {
	s := capture.NewStore()
	s.AddLogs([]capture.LogEntry{
		{Level: "error", Message: "boom", Stack: "    at f (http://a.test/app.js:1:1)"},
		{Level: "error", Message: "boom", Stack: "    at g (http://a.test/app.js:2:2)"},
		{Level: "error", Message: "no stack"},
	})
	r := NewReader(s, nil, nil)
	r.SetLocate(func(e capture.LogEntry) string { return "located " + e.Stack[strings.Index(e.Stack, "(")+1:] })
	got := r.Take(Window{}).Errors
	if fmt.Sprint(got) != fmt.Sprint([]Issue{{"boom", 2, "located http://a.test/app.js:2:2)"}, {"no stack", 1, ""}}) {
		t.Errorf("%v", got)
	}
}
