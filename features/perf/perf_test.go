package perf

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// clock is the injected time source: tests move it, never sleep.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newStore() (*Store, *clock) {
	c := &clock{t0}
	return NewStore(c.now), c
}

func f(v float64) *float64 { return &v }

const home = "http://localhost:3000/"

func loadMS(ms float64) Sample { return Sample{URL: home, LoadTime: ms} }

func TestBaselineAveragesThenWeights(t *testing.T) {
	for _, tc := range []struct {
		name  string
		loads []float64
		want  float64
	}{
		{"one load", []float64{1000}, 1000},
		{"even average while warming up", []float64{1000, 1100, 900, 1000, 1000}, 1000},
		{"then the newest load weighs 0.2", []float64{1000, 1100, 900, 1000, 1000, 2000}, 1200},
		{"and again", []float64{1000, 1100, 900, 1000, 1000, 2000, 2000}, 1360},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newStore()
			for _, v := range tc.loads {
				if _, err := s.Add(loadMS(v)); err != nil {
					t.Fatal(err)
				}
			}
			p := s.pages[home]
			if got := p.base.Performance().LoadTime; math.Abs(got-tc.want) > 1e-9 || p.base.Samples != len(tc.loads) {
				t.Fatalf("baseline %v over %d loads, want %v over %d", got, p.base.Samples, tc.want, len(tc.loads))
			}
		})
	}
}

// Each case: loads that build the baseline, then the load judged.
func TestRegressionDetection(t *testing.T) {
	base := Sample{URL: home, LoadTime: 1000, FCP: 400, LCP: 900, TTFB: 100, DOMContentLoaded: 700, CLS: f(0.01),
		RequestCount: 12, TransferSize: 300 << 10}
	with := func(fn func(*Sample)) Sample { s := base; fn(&s); return s }
	for _, tc := range []struct {
		name    string
		history []Sample
		sample  Sample
		want    []string
	}{
		{"first load sets the baseline", nil, base, nil},
		{"same again", []Sample{base}, base, nil},
		{"slow load", []Sample{base, base}, with(func(s *Sample) { s.LoadTime, s.LCP = 3200, 3000 }), []string{"load_time", "lcp"}},
		{"+50% but only +150 ms is noise", []Sample{base}, with(func(s *Sample) { s.TTFB = 250 }), nil},
		{"layout shift", []Sample{base}, with(func(s *Sample) { s.CLS = f(0.2) }), []string{"cls"}},
		{"request flood", []Sample{base}, with(func(s *Sample) { s.RequestCount, s.TransferSize = 40, 3<<20 }), []string{"request_count", "transfer_size"}},
		{"long tasks appear", []Sample{base}, with(func(s *Sample) { s.LongTasks, s.TotalBlocking = 3, 400 }), []string{"long_tasks", "total_blocking_time"}},
		{"faster is fine", []Sample{base}, with(func(s *Sample) { s.LoadTime = 500 }), nil},
		{"one slow load in history barely moves the baseline", []Sample{base, base, base, base, base, with(func(s *Sample) { s.LoadTime = 5000 })},
			with(func(s *Sample) { s.LoadTime = 3000 }), []string{"load_time"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c := newStore()
			for _, h := range tc.history {
				s.Add(h)
				c.t = c.t.Add(time.Minute)
			}
			a, err := s.Add(tc.sample)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a.Regressions, tc.want) {
				t.Fatalf("regressions %v, want %v", a.Regressions, tc.want)
			}
			check := s.Check("")
			want := map[bool]string{true: Regressed, false: OK}[len(tc.want) > 0]
			if tc.history == nil {
				want = FirstLoad
			}
			if check.Verdict != want || check.Pages[0].Verdict != want {
				t.Fatalf("verdict %s/%s, want %s\n%s", check.Verdict, check.Pages[0].Verdict, want, check.Report)
			}
		})
	}
}

func TestAddReportsTheBaselineLoadItWasJudgedAgainst(t *testing.T) {
	s, _ := newStore()
	if a, _ := s.Add(loadMS(1000)); a.BaselineLoad != 0 || a.URL != home {
		t.Fatalf("first: %+v", a)
	}
	s.Add(loadMS(1200))
	if a, _ := s.Add(loadMS(2600)); a.BaselineLoad != 1100 || !slices.Equal(a.Regressions, []string{"load_time"}) {
		t.Fatalf("third: %+v", a)
	}
}

func TestPagesAreKeyedWithoutQueryAndBounded(t *testing.T) {
	s, c := newStore()
	s.Add(Sample{URL: "http://localhost:3000/a?token=[redacted]#top", LoadTime: 1000})
	s.Add(Sample{URL: "http://localhost:3000/a?v=2", LoadTime: 1000})
	if len(s.pages) != 1 || s.pages["http://localhost:3000/a"].base.Samples != 2 {
		t.Fatalf("pages: %v", s.pages)
	}
	for i := range MaxPages + 5 {
		c.t = c.t.Add(time.Second)
		s.Add(Sample{URL: fmt.Sprintf("http://localhost:3000/p%d", i), LoadTime: 1000})
	}
	if len(s.pages) != MaxPages {
		t.Fatalf("%d pages held, want %d", len(s.pages), MaxPages)
	}
	if _, ok := s.pages["http://localhost:3000/p4"]; ok {
		t.Fatal("an older page outlived a newer one")
	}
	if _, ok := s.pages["http://localhost:3000/p5"]; !ok {
		t.Fatal("the oldest page kept was evicted")
	}
	snaps := s.Snapshots("/p", 3)
	if len(snaps) != 3 || snaps[0].URL != "http://localhost:3000/p24" {
		t.Fatalf("snapshots newest first: %+v", snaps)
	}
	s.Clear()
	if _, ok := s.Latest(""); ok {
		t.Fatal("cleared store still has data")
	}
}

func TestKey(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:3000":                  "http://localhost:3000/",
		"http://localhost:3000/?":                "http://localhost:3000/",
		"http://user:pw@localhost:3000/a?b=1#c":  "http://localhost:3000/a",
		"https://shop.test/p/1?token=[redacted]": "https://shop.test/p/1",
		"file:///tmp/x.html?q":                   "file:///tmp/x.html",
		"not a url?q=1#f":                        "not a url",
	} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSanitize(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Sample
		err  string
	}{
		{"no url", Sample{LoadTime: 1}, "url is required"},
		{"negative time", Sample{URL: home, FCP: -1}, "fcp"},
		{"over an hour", Sample{URL: home, LoadTime: 4e6}, "load_time"},
		{"negative cls", Sample{URL: home, CLS: f(-0.1)}, "cls"},
		{"negative count", Sample{URL: home, RequestCount: -1}, "request_count"},
		{"negative type", Sample{URL: home, ByType: map[string]Resources{"img": {Count: -1}}}, "img"},
		{"ok", Sample{URL: home, LoadTime: 1000, ByType: map[string]Resources{strings.Repeat("t", 99): {Count: 1}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Sanitize()
			if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
	many := Sample{URL: strings.Repeat("u", capture.MaxURL+10), ByType: map[string]Resources{}}
	for i := range 40 {
		many.ByType[fmt.Sprint("type", i)] = Resources{Count: 1}
	}
	if err := many.Sanitize(); err != nil || len(many.ByType) != MaxTypes || len(many.URL) != capture.MaxURL {
		t.Fatalf("caps: %v %d %d", err, len(many.ByType), len(many.URL))
	}
}

func TestLatestIsALatestFunc(t *testing.T) {
	s, c := newStore()
	var fn LatestFunc = s.Latest
	s.Add(Sample{URL: "http://localhost:3000/a", LoadTime: 1000, CLS: f(0)})
	c.t = c.t.Add(time.Second)
	s.Add(Sample{URL: "http://localhost:3000/b", LoadTime: 2000})
	if p, ok := fn(""); !ok || p.LoadTime != 2000 || !p.At.Equal(t0.Add(time.Second)) {
		t.Fatalf("newest: %+v", p)
	}
	if p, ok := fn("/a"); !ok || p.LoadTime != 1000 || p.CLS == nil {
		t.Fatalf("filtered: %+v", p)
	}
	if _, ok := fn("/zzz"); ok {
		t.Fatal("matched nothing, still ok")
	}
}

func TestSnapshotJSONIsDense(t *testing.T) {
	s, _ := newStore()
	s.Add(Sample{URL: home, LoadTime: 1000.4, CLS: f(0.12345), ByType: map[string]Resources{"script": {Count: 2, TransferSize: 1000}}})
	s.Add(Sample{URL: home, LoadTime: 3000.6, CLS: f(0)})
	b, _ := json.Marshal(s.Snapshots("", 0))
	want := `[{"ts":"2026-11-22T10:00:00.000Z","url":"http://localhost:3000/","load_time":3001,"cls":0,` +
		`"baseline_loads":1,"regressions":["load_time"]}]`
	if string(b) != want {
		t.Fatalf("JSON\n got %s\nwant %s", b, want)
	}
}

func TestReport(t *testing.T) {
	s, c := newStore()
	base := Sample{URL: "http://localhost:3000/checkout?step=1", LoadTime: 1100, DOMContentLoaded: 800, TTFB: 120, FCP: 400, LCP: 900,
		CLS: f(0.02), RequestCount: 12, TransferSize: 340 << 10}
	s.Add(base)
	s.Add(base)
	c.t = c.t.Add(time.Minute)
	slow := base
	slow.TS = capture.Time{Time: c.t}
	slow.LoadTime, slow.CLS, slow.RequestCount, slow.TransferSize = 3200, f(0.12), 47, 2400<<10
	slow.LongTasks, slow.TotalBlocking, slow.LongestTask = 4, 380, 210
	slow.ByType = map[string]Resources{"script": {30, 1900 << 10}, "img": {10, 400 << 10}, "fetch": {7, 12 << 10}}
	s.Add(slow)
	c.t = c.t.Add(4 * time.Second)
	s.Add(Sample{TS: capture.Time{Time: t0}, URL: "http://localhost:3000/about", LoadTime: 500})

	got := s.Check("")
	want := strings.Join([]string{
		"http://localhost:3000/checkout: REGRESSED (6 metrics) vs a baseline of 2 loads, measured 4s ago.",
		"  load                 3200 ms  baseline   1100 ms   +191%  REGRESSION",
		"  DOMContentLoaded      800 ms  baseline    800 ms      0%",
		"  TTFB                  120 ms  baseline    120 ms      0%",
		"  FCP                   400 ms  baseline    400 ms      0%",
		"  LCP                   900 ms  baseline    900 ms      0%",
		"  CLS                    0.120  baseline     0.020   +500%  REGRESSION",
		"  requests                  47  baseline        12   +292%  REGRESSION",
		"  transfer              2.3 MB  baseline    340 KB   +606%  REGRESSION",
		"  long tasks                 4  baseline         0      +4  REGRESSION",
		"  blocking time         380 ms  baseline      0 ms    +380  REGRESSION",
		"  longest task          210 ms",
		"  by type            script 30 (1.9 MB), img 10 (400 KB), fetch 7 (12 KB)",
		"http://localhost:3000/about: first load measured 1m4s ago; it is the baseline now. Load 500 ms.",
	}, "\n")
	if got.Report != want {
		t.Fatalf("report\n%s\nwant\n%s", got.Report, want)
	}
	if got.Verdict != Regressed || len(got.Pages) != 2 || got.Pages[1].Verdict != FirstLoad ||
		!slices.Equal(got.Pages[0].Regressions, []string{"load_time", "cls", "request_count", "transfer_size", "long_tasks", "total_blocking_time"}) {
		t.Fatalf("check: %+v", got)
	}
	if none := s.Check("/nope"); none.Verdict != NoData || !strings.Contains(none.Report, `"/nope"`) {
		t.Fatalf("no match: %+v", none)
	}
}
