package streaming

import (
	"slices"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

type step struct {
	d       time.Duration
	entries []any
}

func steps(d time.Duration, entries ...any) step { return step{d, entries} }

func TestSignificanceFilters(t *testing.T) {
	const api = "http://localhost:3000/api/users"
	load := func(ms, loadMS, baseMS float64) PageLoad {
		return PageLoad{TS: at(int(ms)), URL: page + "?ref=x", LoadMS: loadMS, BaselineMS: baseMS, TabID: 1}
	}
	long := func(ms, dur float64) LongTask {
		return LongTask{TS: at(int(ms)), DurationMS: dur, Page: page, TabID: 1}
	}
	form := func(ms int, tab int) FormSubmit {
		return FormSubmit{TS: at(ms), Action: "http://localhost:3000/api/signup?x=1", Method: "post", Selector: "form#signup", Page: page, TabID: tab}
	}
	tests := []struct {
		name  string
		u     Update
		steps []step
		want  []string
	}{
		{"new console error", Update{}, []step{steps(0, consoleErr(0, "boom"))}, []string{"New error: boom"}},
		{"exception counts as an error", Update{},
			[]step{steps(0, capture.LogEntry{Level: "error", Kind: "exception", Message: "TypeError: x is undefined"})},
			[]string{"New error: TypeError: x is undefined"}},
		{"an error seen before is not new, whatever its numbers", Update{}, []step{
			steps(0, consoleErr(0, "User 1234 not found (id 9f8e7d6c)")),
			steps(sec(90), consoleErr(90000, "User 5678 not found (id 0a1b2c3d)")),
		}, []string{"New error: User 1234 not found (id 9f8e7d6c)"}},
		{"two different errors both count", Update{}, []step{
			steps(0, consoleErr(0, "a failed"), consoleErr(10, "b failed")),
		}, []string{"New error: a failed", "New error: b failed"}},
		{"warnings and logs are not significant", Update{}, []step{
			steps(0, capture.LogEntry{Level: "warn", Message: "careful"}, capture.LogEntry{Level: "log", Message: "hi"}),
		}, nil},
		{"unhandled rejection, again after the dedup window", Update{}, []step{
			steps(0, capture.LogEntry{Level: "error", Kind: "rejection", Message: "nope"}),
			steps(sec(10), capture.LogEntry{Level: "error", Kind: "rejection", Message: "nope"}),
			steps(sec(40), capture.LogEntry{Level: "error", Kind: "rejection", Message: "nope"}),
		}, []string{"Unhandled rejection: nope", "Unhandled rejection: nope"}},
		{"5xx", Update{}, []step{steps(0, req(0, "POST", api+"?page=2", 500))},
			[]string{"Server error: POST /api/users → 500"}},
		{"5xx on another origin keeps the origin", Update{}, []step{steps(0, req(0, "GET", "https://cdn.example/x.js", 503))},
			[]string{"Server error: GET https://cdn.example/x.js → 503"}},
		{"2xx and 3xx are not significant", Update{}, []step{steps(0, req(0, "GET", api, 200), req(1, "GET", api, 304))}, nil},
		{"4xx without an earlier 2xx is not significant", Update{}, []step{steps(0, req(0, "GET", api, 404))}, nil},
		{"4xx after 2xx on the same endpoint", Update{}, []step{
			steps(0, req(0, "GET", api+"?a=1", 200)), steps(sec(1), req(1000, "GET", api+"?a=2", 403)),
		}, []string{"Auth/access issue: GET /api/users → 403 (was 200)"}},
		{"4xx after 4xx is no news", Update{}, []step{
			steps(0, req(0, "GET", api, 200), req(1, "GET", api, 401), req(2, "GET", api, 401)),
		}, []string{"Auth/access issue: GET /api/users → 401 (was 200)"}},
		{"4xx after 3xx is not significant", Update{}, []step{
			steps(0, req(0, "GET", api, 302), req(1, "GET", api, 403)),
		}, nil},
		{"4xx after 2xx on another endpoint or method", Update{}, []step{
			steps(0, req(0, "GET", api, 200), req(1, "GET", api+"/1", 403), req(2, "DELETE", api, 403)),
		}, nil},
		{"load over twice the baseline", Update{}, []step{steps(0, load(0, 4200, 2000))},
			[]string{"Performance regression: http://localhost:3000/shop loaded in 4.2s (baseline: 2.0s)"}},
		{"load under twice the baseline, or without one", Update{}, []step{steps(0, load(0, 3900, 2000), load(1, 9000, 0))}, nil},
		{"long task over 500 ms", Update{}, []step{steps(0, long(0, 501))},
			[]string{"Main thread blocked for 501ms"}},
		{"long tasks of 500 ms or less", Update{}, []step{steps(0, long(0, 500), long(1, 450))}, nil},
		{"3 clicks on one target within 5 s", Update{}, []step{
			steps(0, click(0, "#buy"), click(900, "#buy"), click(1800, "#buy")),
		}, []string{"Repeated clicks on #buy — handler may be broken"}},
		{"3 clicks spread over more than 5 s", Update{}, []step{
			steps(0, click(0, "#buy"), click(3000, "#buy"), click(5001, "#buy")),
		}, nil},
		{"3 clicks on different targets, or 2 on one", Update{}, []step{
			steps(0, click(0, "#a"), click(100, "#b"), click(200, "#c"), click(300, "#a")),
		}, nil},
		{"clicks are judged by browser time, not arrival", Update{}, []step{
			steps(0, click(0, "#buy")), steps(sec(8), click(8000, "#buy"), click(8100, "#buy")),
		}, nil},
		{"form submit with no response", Update{}, []step{steps(0, form(0, 1))},
			[]string{"Form submit to http://localhost:3000/api/signup — no response after 5s"}},
		{"captured submit action without a form action names the form", Update{}, []step{
			steps(0, capture.Action{Type: "submit", Selector: "form#login", TabID: 1}),
		}, []string{"Form submit to form#login — no response after 5s"}},
		{"form submit answered in time", Update{}, []step{steps(0, form(0, 1)), steps(sec(4), req(4000, "POST", api, 201))}, nil},
		{"form submit answered by an error response still counts as answered", Update{}, []step{
			steps(0, form(0, 1), req(100, "GET", api, 404)),
		}, nil},
		{"response ingested before the submit it answers", Update{}, []step{steps(0, req(300, "POST", api, 200), form(0, 1))}, nil},
		{"form submit answered by a navigation", Update{}, []step{
			steps(0, form(0, 1), capture.Action{TS: at(200), Type: "navigation", URL: page + "/done", TabID: 1}),
		}, nil},
		{"a response on another tab does not answer", Update{}, []step{steps(0, form(0, 1)), steps(sec(1), capture.NetworkEntry{TS: at(1000), Method: "GET", URL: api, Status: 200, TabID: 2})},
			[]string{"Form submit to http://localhost:3000/api/signup — no response after 5s"}},
		{"secret in a new request, once per endpoint", Update{}, []step{
			steps(0, req(0, "GET", api+"?key=AKIAABCDEFGHIJKLMNOP", 200)),
			steps(sec(40), req(40000, "GET", api+"?key=AKIAABCDEFGHIJKLMNOP", 200),
				capture.NetworkBody{TS: at(40000), Method: "GET", URL: api + "?key=AKIAABCDEFGHIJKLMNOP", Page: page}),
		}, []string{"Possible credential exposure in GET /api/users"}},
		{"secret in a request body", Update{}, []step{
			steps(0, capture.NetworkBody{TS: at(0), Method: "POST", URL: api, RequestBody: `{"k":"AKIAABCDEFGHIJKLMNOP"}`, Page: page}),
		}, []string{"Possible credential exposure in POST /api/users"}},
		{"category filter", Update{Events: []string{Performance}}, []step{
			steps(0, req(0, "GET", api, 500), consoleErr(0, "x"), click(0, "#a"), click(1, "#a"), click(2, "#a"), long(3, 900)),
		}, []string{"Main thread blocked for 900ms"}},
		{"url filter matches request URL or page", Update{URLFilter: ptr("/api/users")}, []step{
			steps(0, req(0, "GET", "http://localhost:3000/api/orders", 500), req(1, "GET", api, 502), consoleErr(2, "not on that page")),
		}, []string{"Server error: GET /api/users → 502"}},
		{"capture.Event as Subscribe delivers it", Update{}, []step{
			steps(0, capture.Event{Kind: capture.KindNetwork, Seq: 7, Entry: req(0, "GET", api, 500)}),
		}, []string{"Server error: GET /api/users → 500"}},
		{"unknown entry types are ignored", Update{}, []step{steps(0, capture.WSEvent{Event: "error"}, 42, nil)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tc.u)
			for _, st := range tc.steps {
				r.at(st.d, st.entries...)
			}
			r.until(r.clk.t.Sub(t0) + 2*time.Minute)
			got := r.messages()
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("delivered %q\nwant      %q", got, want)
			}
		})
	}
}

func TestFormTimeoutIsFiveSecondsAfterSubmit(t *testing.T) {
	r := newRig(t, Update{})
	r.at(0, FormSubmit{Action: "/api/signup", TabID: 1})
	r.until(sec(5) - time.Millisecond)
	if len(r.got) != 0 {
		t.Fatalf("sent before the timeout: %+v", r.got)
	}
	// Due at 5 s; the batch window then holds it 2 s more.
	r.until(sec(8))
	if len(r.got) != 1 || !r.got[0].at.Equal(t0.Add(sec(7))) {
		t.Fatalf("want one notification at 7 s, got %+v", r.got)
	}
}

func TestNormalise(t *testing.T) {
	tests := []struct{ in, want string }{
		{"User 1234 not found", "User # not found"},
		{"id 9f8e7d6c-aaaa-4bbb-8ccc-0123456789ab gone", "id #-aaaa-#-#-# gone"},
		{"v2 api  failed\n\tagain", "v# api failed again"},
		{"Cannot read properties of undefined (reading 'x')", "Cannot read properties of undefined (reading 'x')"},
		{"  leading", "leading"},
	}
	for _, tc := range tests {
		if got := normalise(tc.in); got != tc.want {
			t.Errorf("normalise(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if normalise("User 1 failed at 10:01") != normalise("User 22 failed at 11:59") {
		t.Error("messages differing only in numbers must normalise alike")
	}
}
