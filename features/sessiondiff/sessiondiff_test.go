package sessiondiff

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/snapshot"
)

const page = "http://localhost:3000/dashboard"

type rig struct {
	store *capture.Store
	now   time.Time
	perf  *perf.Performance
	s     *Store
}

func newRig() *rig {
	r := &rig{store: capture.NewStore(), now: time.Date(2025, 1, 20, 14, 30, 0, 0, time.UTC)}
	r.store.SetPage(capture.Page{TabID: 1, URL: page})
	r.s = New(snapshot.NewReader(r.store, func(string) (perf.Performance, bool) {
		if r.perf == nil {
			return perf.Performance{}, false
		}
		return *r.perf, true
	}, func() time.Time { return r.now }))
	return r
}

func (r *rig) do(t *testing.T, req Request) any {
	t.Helper()
	res, err := r.s.Do(req)
	if err != nil {
		t.Fatalf("%+v: %v", req, err)
	}
	return res
}

func (r *rig) fail(t *testing.T, req Request, code problem.Code, msgHas string) {
	t.Helper()
	_, err := r.s.Do(req)
	var p *problem.Error
	if !errors.As(err, &p) || p.Code != code || !strings.Contains(p.Message, msgHas) {
		t.Fatalf("%+v: got %v, want %s containing %q", req, err, code, msgHas)
	}
}

// fresh empties the capture buffers, as a reload of another variant would start over.
func (r *rig) fresh(t *testing.T) {
	t.Helper()
	if err := r.store.Clear(); err != nil {
		t.Fatal(err)
	}
	r.perf = nil
}

func (r *rig) errs(msgs ...string) {
	var l []capture.LogEntry
	for _, m := range msgs {
		l = append(l, capture.LogEntry{Level: "error", Message: m, Page: page})
	}
	r.store.AddLogs(l)
}

func (r *rig) calls(calls ...string) {
	var n []capture.NetworkEntry
	for _, c := range calls { // "GET /path 200 120ms"
		var e capture.NetworkEntry
		var ms float64
		fmt.Sscanf(c, "%s %s %d %fms", &e.Method, &e.URL, &e.Status, &ms)
		e.URL, e.DurationMS, e.Page = "http://localhost:3000"+e.URL, ms, page
		n = append(n, e)
	}
	r.store.AddNetwork(n)
}

func js(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The spec's capture and compare examples, field for field.
func TestCaptureAndCompareAsSpec(t *testing.T) {
	r := newRig()
	r.store.AddLogs([]capture.LogEntry{{Level: "warn", Message: "slow", Page: page}, {Level: "warn", Message: "slow", Page: page}})
	r.calls("GET /api/dashboard 200 100ms", "GET /api/user 200 20ms", "GET /api/notifications 200 30ms")
	r.store.AddWSEvents([]capture.WSEvent{{Event: "open", ID: "1", URL: "ws://localhost:3000/live"}})
	r.perf = &perf.Performance{LoadTime: 1100, RequestCount: 12, TransferSize: 340000}
	got := js(t, r.do(t, Request{Action: "capture", Name: "before-deploy"}))
	want := `{"action":"captured","name":"before-deploy","snapshot":{"captured_at":"2025-01-20T14:30:00.000Z","console_errors":0,"console_warnings":2,` +
		`"network_requests":3,"network_errors":0,"unique_endpoints":3,"websocket_connections":1,` +
		`"performance":{"load_time":1100,"request_count":12,"transfer_size":340000},"page_url":"` + page + `"}}`
	if got != want {
		t.Fatalf("capture\n got %s\nwant %s", got, want)
	}

	r.fresh(t)
	r.now = r.now.Add(15 * time.Minute)
	r.store.AddLogs([]capture.LogEntry{{Level: "warn", Message: "slow", Page: page}, {Level: "warn", Message: "slow", Page: page}})
	r.errs("React hydration mismatch", "React hydration mismatch", "React hydration mismatch")
	r.calls("GET /api/dashboard 200 440ms", "GET /api/user 200 25ms", "GET /api/notifications 502 30ms", "GET /api/feature-flags 200 10ms")
	r.store.AddWSEvents([]capture.WSEvent{{Event: "open", ID: "2", URL: "ws://localhost:3000/live"}, {Event: "close", ID: "2", Code: 1006}})
	r.perf = &perf.Performance{LoadTime: 3200, RequestCount: 47, TransferSize: 2400000}
	r.do(t, Request{Action: "capture", Name: "after-deploy"})

	got = js(t, r.do(t, Request{Action: "compare", CompareA: "before-deploy", CompareB: "after-deploy"}))
	want = `{"action":"compared","a":"before-deploy","b":"after-deploy","diff":{` +
		`"errors":{"new":[{"type":"console","message":"React hydration mismatch","count":3}],"unchanged":[{"type":"warning","message":"slow","count":2}]},` +
		`"network":{"new_errors":[{"method":"GET","url":"/api/notifications","status":502,"before":200}],` +
		`"status_changes":[{"method":"GET","url":"/api/dashboard","before":200,"after":200,"duration_change":"+340ms"}],` +
		`"new_endpoints":[{"method":"GET","url":"/api/feature-flags","status":200}]},` +
		`"performance":{"load_time":{"before":1100,"after":3200,"change":"+191%","regression":true},` +
		`"request_count":{"before":12,"after":47,"change":"+292%","regression":true},` +
		`"transfer_size":{"before":340000,"after":2400000,"change":"+606%","regression":true}},` +
		`"websockets":{"connection_changes":[{"url":"/live","before":"open","after":"closed"}]}},` +
		`"summary":{"verdict":"regressed","new_errors":3,"resolved_errors":0,"performance_regressions":3,"slower_endpoints":1,"new_network_errors":1}}`
	if got != want {
		t.Fatalf("compare\n got %s\nwant %s", got, want)
	}

	got = js(t, r.do(t, Request{Action: "list"}))
	want = `{"action":"listed","snapshots":[{"name":"before-deploy","captured_at":"2025-01-20T14:30:00.000Z","page_url":"` + page + `","error_count":0},` +
		`{"name":"after-deploy","captured_at":"2025-01-20T14:45:00.000Z","page_url":"` + page + `","error_count":3}]}`
	if got != want {
		t.Fatalf("list\n got %s\nwant %s", got, want)
	}
	if got := js(t, r.do(t, Request{Action: "delete", Name: "before-deploy"})); got != `{"action":"deleted","name":"before-deploy"}` {
		t.Fatalf("delete %s", got)
	}
	r.fail(t, Request{Action: "delete", Name: "before-deploy"}, problem.NotFound, "stored: after-deploy")
}

func TestVerdicts(t *testing.T) {
	type side func(r *rig)
	for _, tc := range []struct {
		name     string
		a, b     side
		verdict  string
		resolved int
		added    int
	}{
		{"improved: an error gone", func(r *rig) { r.errs("boom", "boom") }, func(r *rig) {}, Improved, 2, 0},
		{"improved: a failing endpoint answers", func(r *rig) { r.calls("GET /api/a 500 10ms") }, func(r *rig) { r.calls("GET /api/a 200 10ms") }, Improved, 1, 0},
		{"regressed: a new error", func(r *rig) {}, func(r *rig) { r.errs("boom") }, Regressed, 0, 1},
		{"regressed: a new failing endpoint", func(r *rig) {}, func(r *rig) { r.calls("GET /api/b 404 10ms") }, Regressed, 0, 1},
		{"regressed: slower only", func(r *rig) { r.perf = &perf.Performance{LCP: 400} }, func(r *rig) { r.perf = &perf.Performance{LCP: 1400} }, Regressed, 0, 0},
		{"regressed: an endpoint 10ms to 800ms", func(r *rig) { r.calls("GET /api/a 200 10ms") }, func(r *rig) { r.calls("GET /api/a 200 800ms") }, Regressed, 0, 0},
		{"regressed: an endpoint 2x and 100ms slower", func(r *rig) { r.calls("GET /api/a 200 100ms") }, func(r *rig) { r.calls("GET /api/a 200 200ms") }, Regressed, 0, 0},
		{"unchanged: 2x but under 100ms slower", func(r *rig) { r.calls("GET /api/a 200 40ms") }, func(r *rig) { r.calls("GET /api/a 200 120ms") }, Unchanged, 0, 0},
		{"unchanged: 100ms but under 2x slower", func(r *rig) { r.calls("GET /api/a 200 300ms") }, func(r *rig) { r.calls("GET /api/a 200 590ms") }, Unchanged, 0, 0},
		{"mixed: fixed but an endpoint slower", func(r *rig) { r.errs("old"); r.calls("GET /api/a 200 10ms") },
			func(r *rig) { r.calls("GET /api/a 200 800ms") }, Mixed, 1, 0},
		{"mixed: one gone, one new", func(r *rig) { r.errs("old") }, func(r *rig) { r.errs("new") }, Mixed, 1, 1},
		{"mixed: fixed but slower", func(r *rig) { r.errs("old"); r.perf = &perf.Performance{LoadTime: 500} },
			func(r *rig) { r.perf = &perf.Performance{LoadTime: 2000} }, Mixed, 1, 0},
		{"unchanged: the same state", func(r *rig) { r.errs("same"); r.calls("GET /api/a 200 10ms") },
			func(r *rig) { r.errs("same"); r.calls("GET /api/a 200 12ms") }, Unchanged, 0, 0},
		{"unchanged: both empty", func(r *rig) {}, func(r *rig) {}, Unchanged, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			tc.a(r)
			r.do(t, Request{Action: "capture", Name: "a"})
			r.fresh(t)
			tc.b(r)
			res := r.do(t, Request{Action: "compare", CompareA: "a"}).(*CompareResult) // b defaults to current
			s := res.Summary
			if res.B != Current || s.Verdict != tc.verdict || s.ResolvedErrors+s.ResolvedNetworkErrors != tc.resolved || s.NewErrors+s.NewNetworkErrors != tc.added {
				t.Fatalf("%s", js(t, res))
			}
		})
	}
}

func TestCompareSameSnapshotIsEmpty(t *testing.T) {
	r := newRig()
	r.errs("boom")
	r.calls("GET /api/a 500 10ms")
	r.do(t, Request{Action: "capture", Name: "x"})
	got := js(t, r.do(t, Request{Action: "compare", CompareA: "x", CompareB: "x"}))
	if want := `{"action":"compared","a":"x","b":"x","diff":{"errors":{"unchanged":[{"type":"console","message":"boom","count":1}]}},"summary":{"verdict":"unchanged","new_errors":0,"resolved_errors":0}}`; got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	r.fresh(t)
	r.do(t, Request{Action: "capture", Name: "empty"})
	if got := js(t, r.do(t, Request{Action: "compare", Name: "empty", CompareB: "empty"})); got != `{"action":"compared","a":"empty","b":"empty","summary":{"verdict":"unchanged","new_errors":0,"resolved_errors":0}}` {
		t.Fatalf("empty: %s", got)
	}
}

func TestCurrentUsesTheSnapshotsURLFilter(t *testing.T) {
	r := newRig()
	r.store.AddLogs([]capture.LogEntry{{Level: "error", Message: "checkout broke", Page: "http://localhost:3000/checkout"}})
	r.do(t, Request{Action: "capture", Name: "co", URLFilter: "checkout"})
	r.errs("dashboard noise") // on /dashboard: outside the filter
	res := r.do(t, Request{Action: "compare", Name: "co"}).(*CompareResult)
	if res.Summary.Verdict != Unchanged || res.Summary.NewErrors != 0 {
		t.Fatalf("current ignored the filter: %s", js(t, res))
	}
	if res := r.do(t, Request{Action: "compare", Name: "co", URLFilter: "localhost"}).(*CompareResult); res.Summary.NewErrors != 1 {
		t.Fatalf("an explicit filter for current was ignored: %s", js(t, res))
	}
}

func TestNames(t *testing.T) {
	r := newRig()
	for _, tc := range []struct {
		name string
		code problem.Code
		has  string
	}{
		{"", problem.InvalidParam, "name is required"},
		{strings.Repeat("n", MaxName+1), problem.InvalidParam, "51 characters long; the limit is 50"},
		{"current", problem.InvalidParam, "reserved"},
		{"Current", problem.InvalidParam, "reserved"},
		{" padded", problem.InvalidParam, "space"},
		{"tab\there", problem.InvalidParam, "control character"},
	} {
		r.fail(t, Request{Action: "capture", Name: tc.name}, tc.code, tc.has)
	}
	r.do(t, Request{Action: "capture", Name: strings.Repeat("é", MaxName)}) // 50 characters, 100 bytes
	r.fail(t, Request{Action: "delete", Name: "current"}, problem.InvalidParam, "reserved")
	r.fail(t, Request{Action: "compare"}, problem.InvalidParam, "compare needs name")
	r.fail(t, Request{Action: "compare", CompareA: "nope"}, problem.NotFound, `"nope"`)
	r.fail(t, Request{Action: "rename"}, problem.InvalidParam, "capture, compare, list, delete")
}

func TestStorageLimits(t *testing.T) {
	r := newRig()
	for i := range MaxSnapshots {
		r.do(t, Request{Action: "capture", Name: fmt.Sprint("s", i)})
		r.now = r.now.Add(time.Minute)
	}
	r.do(t, Request{Action: "compare", Name: "s0"}) // s0 is now the most recently used; s1 the least
	if res := r.do(t, Request{Action: "capture", Name: "s10"}).(*CaptureResult); res.Evicted != "s1" {
		t.Fatalf("evicted %q, want s1 (LRU)", res.Evicted)
	}
	if res := r.do(t, Request{Action: "capture", Name: "s5"}).(*CaptureResult); res.Evicted != "" {
		t.Fatalf("re-capturing a name evicted %q", res.Evicted)
	}
	if n := len(r.do(t, Request{Action: "list"}).(*ListResult).Snapshots); n != MaxSnapshots {
		t.Fatalf("%d snapshots, want %d", n, MaxSnapshots)
	}
	r.fail(t, Request{Action: "compare", Name: "s1"}, problem.NotFound, "s1")

	// TTL: s2 was captured at +2 min; s0 at +0 (its compare does not extend it).
	r.now = time.Date(2025, 1, 20, 14, 30, 0, 0, time.UTC).Add(TTL + 2*time.Minute - time.Nanosecond)
	list := r.do(t, Request{Action: "list"}).(*ListResult).Snapshots
	if len(list) != MaxSnapshots-1 || list[0].Name != "s2" {
		t.Fatalf("after s0's TTL: %s", js(t, list))
	}
	r.now = r.now.Add(TTL)
	if got := js(t, r.do(t, Request{Action: "list"})); got != `{"action":"listed","snapshots":[]}` {
		t.Fatalf("after every TTL: %s", got)
	}
}

func TestEveryResultHasABrief(t *testing.T) {
	r := newRig()
	r.errs("boom")
	var got []string
	for _, req := range []Request{{Action: "capture", Name: "a"}, {Action: "compare", Name: "a"}, {Action: "list"}, {Action: "delete", Name: "a"}} {
		got = append(got, r.do(t, req).(Brief).Brief())
	}
	want := "captured a: 1 console errors, 0 requests|a vs current: unchanged (0 new errors, 0 resolved, 0 new network errors, 0 performance regressions, 0 slower endpoints)|1 snapshots|deleted a"
	if strings.Join(got, "|") != want {
		t.Fatalf("briefs\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}
