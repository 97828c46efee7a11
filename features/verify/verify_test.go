package verify

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/snapshot"
)

const page = "http://localhost:3000/login"

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

type rig struct {
	store *capture.Store
	clock *clock
	perf  map[bool]perf.Performance // by "measured after the watch began"
	m     *Manager
}

func newRig() *rig {
	r := &rig{store: capture.NewStore(), clock: &clock{time.Date(2026, 1, 20, 14, 30, 0, 0, time.UTC)}}
	r.store.SetPage(capture.Page{TabID: 1, URL: page, TS: capture.Time{Time: r.clock.t}})
	r.m = New(snapshot.NewReader(r.store, r.perfFunc, r.clock.now))
	return r
}

func (r *rig) perfFunc(string) (perf.Performance, bool) {
	p, ok := r.perf[true]
	if !ok {
		p, ok = r.perf[false]
	}
	return p, ok
}

// state is what the page does: console errors and requests ("POST /api/login 500").
type state struct {
	errors   []string
	requests []string
}

func (r *rig) play(t *testing.T, s state) {
	t.Helper()
	var logs []capture.LogEntry
	for _, e := range s.errors {
		logs = append(logs, capture.LogEntry{Level: "error", Message: e, Page: page})
	}
	var net []capture.NetworkEntry
	for _, q := range s.requests {
		var n capture.NetworkEntry
		f := strings.Fields(q)
		n.Method, n.URL, n.Page = f[0], "http://localhost:3000"+f[1], page
		if f[2] == "failed" {
			n.Failed = true
		} else {
			n.Status = atoi(t, f[2])
		}
		net = append(net, n)
	}
	r.store.AddLogs(logs)
	r.store.AddNetwork(net)
}

func atoi(t *testing.T, s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("bad status %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func (r *rig) do(t *testing.T, req Request) any {
	t.Helper()
	res, err := r.m.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", req.Action, err)
	}
	return res
}

func (r *rig) fail(t *testing.T, req Request, code problem.Code, msgHas string) {
	t.Helper()
	_, err := r.m.Do(req)
	var p *problem.Error
	if !errors.As(err, &p) || p.Code != code || !strings.Contains(p.Message, msgHas) {
		t.Fatalf("%+v: got %v, want %s containing %q", req, err, code, msgHas)
	}
}

// cycle runs start on before, watch, then compare on after.
func (r *rig) cycle(t *testing.T, before, after state) *CompareResult {
	t.Helper()
	r.play(t, before)
	id := r.do(t, Request{Action: "start", Label: "fix-login-error"}).(*StartResult).SessionID
	r.do(t, Request{Action: "watch", SessionID: id})
	r.play(t, after)
	return r.do(t, Request{Action: "compare", SessionID: id}).(*CompareResult)
}

func js(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const (
	errUser = "Cannot read property 'user' of undefined"
	errLoad = "Failed to load resource"
	errNew  = "TypeError: session.token is not a function"
)

func TestVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after state
		verdict       string
		changes       string // "type category" of each change, then "| new category" of each new issue
	}{
		{"fixed: every error gone, request now succeeds",
			state{[]string{errUser, errUser, errLoad}, []string{"POST /api/login 500"}},
			state{nil, []string{"POST /api/login 200"}},
			Fixed, "resolved console,resolved console,resolved network"},
		{"improved: one of two errors gone",
			state{[]string{errUser, errLoad}, nil}, state{[]string{errLoad}, nil},
			Improved, "unchanged console,resolved console"}, // most frequent, then newest first
		{"improved: a failing request not made again is not counted as fixed",
			state{[]string{errUser}, []string{"POST /api/save 500"}}, state{nil, []string{"GET /api/me 200"}},
			Improved, "resolved console,not_called network"},
		{"unchanged: same error",
			state{[]string{errUser}, nil}, state{[]string{errUser}, nil},
			Unchanged, "unchanged console"},
		{"unchanged: same failing status",
			state{nil, []string{"POST /api/login 500"}}, state{nil, []string{"POST /api/login 500"}},
			Unchanged, "unchanged network"},
		{"unchanged: another failing status is a change, not a fix",
			state{nil, []string{"POST /api/login 500"}}, state{nil, []string{"POST /api/login 503"}},
			Unchanged, "changed network"},
		{"different_issue: old error gone, a new one",
			state{[]string{errUser}, nil}, state{[]string{errNew}, nil},
			DifferentIssue, "resolved console | new console"},
		{"different_issue: console fixed, a request that worked now fails",
			state{[]string{errUser}, []string{"GET /api/me 200"}}, state{nil, []string{"GET /api/me 500"}},
			DifferentIssue, "resolved console | new network"},
		{"different_issue: console fixed, a never-seen endpoint fails",
			state{[]string{errUser}, nil}, state{nil, []string{"GET /api/new 404"}},
			DifferentIssue, "resolved console | new network"},
		{"regressed: old error stays, a new one too",
			state{[]string{errUser}, nil}, state{[]string{errUser, errNew}, nil},
			Regressed, "unchanged console | new console"},
		{"regressed: errors where there were none",
			state{nil, []string{"GET /api/me 200"}}, state{[]string{errNew}, []string{"GET /api/me failed"}},
			Regressed, " | new console,new network"},
		{"regressed: the same error more often",
			state{[]string{errUser}, nil}, state{[]string{errUser, errUser, errUser}, nil},
			Regressed, "changed console"},
		{"no_issues_detected: clean before and after",
			state{nil, []string{"GET /api/me 200"}}, state{nil, []string{"GET /api/me 200"}},
			NoIssues, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := newRig().cycle(t, tc.before, tc.after)
			if res.Status != StatusCompared || res.Result == nil {
				t.Fatalf("not compared: %s", js(t, res))
			}
			var got []string
			for _, c := range res.Result.Changes {
				got = append(got, c.Type+" "+c.Category)
			}
			s := strings.Join(got, ",")
			if len(res.Result.NewIssues) > 0 {
				got = nil
				for _, c := range res.Result.NewIssues {
					got = append(got, "new "+c.Category)
				}
				s += " | " + strings.Join(got, ",")
			}
			if res.Result.Verdict != tc.verdict || s != tc.changes {
				t.Fatalf("verdict %q changes %q, want %q %q\n%s", res.Result.Verdict, s, tc.verdict, tc.changes, js(t, res))
			}
		})
	}
}

// The spec's compare example, field for field (with the dense rules: no
// empty new_issues, performance in the shared diff shape).
func TestCompareResponseAsSpec(t *testing.T) {
	r := newRig()
	r.perf = map[bool]perf.Performance{false: {LoadTime: 3200, At: r.clock.t}}
	r.play(t, state{[]string{errUser + " at line 42", errUser + " at line 45", errLoad}, []string{"POST /api/login 500"}})
	start := r.do(t, Request{Action: "start", Label: "fix-login-error"}).(*StartResult)
	id := start.SessionID
	if !strings.HasPrefix(id, "verify-") {
		t.Fatalf("session id %q", id)
	}
	wantStart := `{"session_id":"` + id + `","status":"baseline_captured","baseline":{"captured_at":"2026-01-20T14:30:00.000Z",` +
		`"console_errors":3,"network_requests":1,"network_errors":1,"unique_endpoints":1,"performance":{"load_time":3200},"page_url":"` + page + `",` +
		`"error_details":[{"type":"console","message":"` + errUser + ` at line [n]","count":2},{"type":"console","message":"` + errLoad + `","count":1},` +
		`{"type":"network","method":"POST","url":"/api/login","status":500}]}}`
	if got := js(t, start); got != wantStart {
		t.Fatalf("start\n got %s\nwant %s", got, wantStart)
	}
	r.clock.t = r.clock.t.Add(time.Minute)
	if got := js(t, r.do(t, Request{Action: "watch", SessionID: id})); !strings.Contains(got, `"status":"watching"`) {
		t.Fatalf("watch %s", got)
	}
	r.perf[true] = perf.Performance{LoadTime: 1100, At: r.clock.t.Add(time.Second)}
	r.play(t, state{nil, []string{"POST /api/login 200"}})
	want := `{"session_id":"` + id + `","status":"compared","label":"fix-login-error","result":{"verdict":"fixed",` +
		`"before":{"console_errors":3,"network_errors":1,"total_issues":4},"after":{"console_errors":0,"network_errors":0,"total_issues":0},` +
		`"changes":[{"type":"resolved","category":"console","before":"` + errUser + ` at line [n] (x2)","after":"(not seen)"},` +
		`{"type":"resolved","category":"console","before":"` + errLoad + `","after":"(not seen)"},` +
		`{"type":"resolved","category":"network","before":"POST /api/login → 500","after":"POST /api/login → 200"}],` +
		`"performance_diff":{"load_time":{"before":3200,"after":1100,"change":"-66%"}}}}`
	if got := js(t, r.do(t, Request{Action: "compare", SessionID: id})); got != want {
		t.Fatalf("compare\n got %s\nwant %s", got, want)
	}
}

func TestCompareNeedsReproduction(t *testing.T) {
	t.Run("nothing captured since watch", func(t *testing.T) {
		res := newRig().cycle(t, state{[]string{errUser}, nil}, state{})
		if res.Status != StatusNotReproduced || res.Result != nil || !strings.Contains(res.Message, "reproduce") {
			t.Fatalf("%s", js(t, res))
		}
	})
	t.Run("failing request not made again, nothing else failed", func(t *testing.T) {
		res := newRig().cycle(t, state{nil, []string{"POST /api/login 500"}}, state{nil, []string{"GET /api/me 200"}})
		if res.Status != StatusNotReproduced || !strings.Contains(res.Message, "POST /api/login → 500") {
			t.Fatalf("%s", js(t, res))
		}
	})
	t.Run("the session keeps watching, and a later compare answers", func(t *testing.T) {
		r := newRig()
		r.play(t, state{[]string{errUser}, nil})
		id := r.do(t, Request{Action: "start"}).(*StartResult).SessionID
		r.do(t, Request{Action: "watch", SessionID: id})
		if res := r.do(t, Request{Action: "compare", SessionID: id}).(*CompareResult); res.Status != StatusNotReproduced {
			t.Fatalf("%s", js(t, res))
		}
		if st := r.do(t, Request{Action: "status", SessionID: id}).(*StatusResult); st.Status != StatusWatching {
			t.Fatalf("status %s", js(t, st))
		}
		r.play(t, state{nil, []string{"GET /api/me 200"}})
		if res := r.do(t, Request{Action: "compare", SessionID: id}).(*CompareResult); res.Result == nil || res.Result.Verdict != Fixed {
			t.Fatalf("%s", js(t, res))
		}
	})
}

func TestWatchWindowAndURLFilter(t *testing.T) {
	r := newRig()
	r.play(t, state{[]string{errUser}, nil})
	id := r.do(t, Request{Action: "start", URLFilter: "/login"}).(*StartResult).SessionID
	r.play(t, state{[]string{errNew}, nil}) // between start and watch: not in the window
	r.do(t, Request{Action: "watch", SessionID: id})
	r.store.AddLogs([]capture.LogEntry{{Level: "error", Message: errNew, Page: "http://localhost:3000/other"}}) // filtered out
	r.play(t, state{nil, []string{"GET /login/check 200"}})
	res := r.do(t, Request{Action: "compare", SessionID: id}).(*CompareResult)
	if res.Result == nil || res.Result.Verdict != Fixed || len(res.Result.NewIssues) != 0 {
		t.Fatalf("%s", js(t, res))
	}
}

func TestLifecycle(t *testing.T) {
	r := newRig()
	r.play(t, state{[]string{errUser}, nil})
	id := r.do(t, Request{Action: "start", Label: "l"}).(*StartResult).SessionID
	r.fail(t, Request{Action: "compare", SessionID: id}, problem.InvalidParam, "watch")
	r.do(t, Request{Action: "watch", SessionID: id})
	r.play(t, state{[]string{errUser}, nil})
	first := js(t, r.do(t, Request{Action: "compare", SessionID: id}))
	r.play(t, state{nil, []string{"GET /api/me 200"}})
	// Double compare: the window still runs from watch, so the error stays.
	if second := js(t, r.do(t, Request{Action: "compare", SessionID: id})); second != first {
		t.Fatalf("second compare differs:\n%s\n%s", first, second)
	}
	st := js(t, r.do(t, Request{Action: "status", SessionID: id}))
	want := `{"session_id":"` + id + `","label":"l","status":"compared","created_at":"2026-01-20T14:30:00.000Z","expires_at":"2026-01-20T15:00:00.000Z",` +
		`"watch_started_at":"2026-01-20T14:30:00.000Z","baseline":{"console_errors":1,"network_errors":0,"total_issues":1},"verdict":"unchanged"}`
	if st != want {
		t.Fatalf("status\n got %s\nwant %s", st, want)
	}
	if got := js(t, r.do(t, Request{Action: "cancel", SessionID: id})); got != `{"session_id":"`+id+`","status":"cancelled"}` {
		t.Fatalf("cancel %s", got)
	}
	r.fail(t, Request{Action: "status", SessionID: id}, problem.NotFound, "Start a new one")
	r.fail(t, Request{Action: "watch"}, problem.InvalidParam, "session_id")
	r.fail(t, Request{Action: "begin"}, problem.InvalidParam, "start, watch, compare, status, cancel")
	if got := js(t, r.do(t, Request{Action: "status"})); got != `{"sessions":[]}` {
		t.Fatalf("list %s", got)
	}
}

func TestSessionLimitAndExpiry(t *testing.T) {
	r := newRig()
	var ids []string
	for range MaxSessions {
		ids = append(ids, r.do(t, Request{Action: "start"}).(*StartResult).SessionID)
		r.clock.t = r.clock.t.Add(time.Minute)
	}
	r.fail(t, Request{Action: "start"}, problem.RateLimited, ids[0])
	if n := len(r.do(t, Request{Action: "status"}).(*ListResult).Sessions); n != MaxSessions {
		t.Fatalf("%d sessions listed", n)
	}

	// A compared session makes room for a new one.
	r.do(t, Request{Action: "watch", SessionID: ids[1]})
	r.play(t, state{nil, []string{"GET /a 200"}})
	r.do(t, Request{Action: "compare", SessionID: ids[1]})
	ids[1] = r.do(t, Request{Action: "start"}).(*StartResult).SessionID
	r.fail(t, Request{Action: "start"}, problem.RateLimited, "the limit")

	// TTL: ids[0] started 3 minutes before the clock now.
	r.clock.t = r.clock.t.Add(TTL - 3*time.Minute - time.Nanosecond)
	r.do(t, Request{Action: "status", SessionID: ids[0]})
	r.clock.t = r.clock.t.Add(time.Nanosecond)
	r.fail(t, Request{Action: "status", SessionID: ids[0]}, problem.NotFound, ids[0])
	r.do(t, Request{Action: "start"}) // its expiry made room
	r.clock.t = r.clock.t.Add(TTL)
	if n := len(r.do(t, Request{Action: "status"}).(*ListResult).Sessions); n != 0 {
		t.Fatalf("%d sessions outlived the TTL", n)
	}
}

func TestEmptyBaselineAndLabels(t *testing.T) {
	r := newRig()
	res := r.do(t, Request{Action: "start", Label: strings.Repeat("x", 300)}).(*StartResult)
	if got := js(t, res.Baseline); got != `{"captured_at":"2026-01-20T14:30:00.000Z","console_errors":0,"network_errors":0,"page_url":"`+page+`"}` {
		t.Fatalf("empty baseline %s", got)
	}
	st := r.do(t, Request{Action: "status", SessionID: res.SessionID}).(*StatusResult)
	if len(st.Label) != MaxLabel {
		t.Fatalf("label of %d bytes", len(st.Label))
	}
}

func TestEveryResultHasABrief(t *testing.T) {
	r := newRig()
	r.play(t, state{[]string{errUser}, []string{"POST /api/login 500"}})
	id := r.do(t, Request{Action: "start"}).(*StartResult).SessionID
	var got []string
	brief := func(req Request) {
		got = append(got, r.do(t, req).(Brief).Brief())
	}
	brief(Request{Action: "status", SessionID: id})
	brief(Request{Action: "watch", SessionID: id})
	brief(Request{Action: "compare", SessionID: id})
	r.play(t, state{nil, []string{"POST /api/login 200"}})
	brief(Request{Action: "compare", SessionID: id})
	brief(Request{Action: "status"})
	brief(Request{Action: "cancel", SessionID: id})
	want := []string{id + " baseline_captured", id + " watching", id + " not_reproduced", id + " fixed: 2 → 0 issues", "1 sessions", id + " cancelled"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("briefs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r.play(t, state{[]string{errUser}, nil})
	// The baseline is all the buffers hold: the earlier error too.
	if b := r.do(t, Request{Action: "start"}).(Brief).Brief(); !strings.HasSuffix(b, " baseline: 2 console errors, 0 network errors") {
		t.Fatalf("start brief %q", b)
	}
}
