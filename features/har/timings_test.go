package har

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// A request with the browser's phases is split by them, still valid HAR
// 1.2 with its timings adding up to its time; one without keeps it all as
// wait.
func TestBuildSplitsTimeByThePhases(t *testing.T) {
	network := []capture.NetworkEntry{
		{TS: at(0), Method: "GET", URL: "https://a.test/api/new", Status: 200, DurationMS: 860, Type: "fetch",
			Timing: &capture.Timing{DNS: 2.1, Connect: 31.5, TLS: 18.2, Wait: 812.3, Download: 14.6}},
		{TS: at(10), Method: "GET", URL: "https://a.test/api/reused", Status: 200, DurationMS: 320, Type: "xhr",
			Timing: &capture.Timing{Wait: 300, Download: 10}},
		{TS: at(20), Method: "GET", URL: "https://b.test/x", Status: 200, DurationMS: 50, Type: "fetch"},
	}
	l := Build(network, nil, Options{})
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, b); err != nil {
		t.Fatalf("not valid HAR 1.2: %v\n%s", err, b)
	}
	got := map[string]Entry{}
	for _, e := range l.Log.Entries {
		got[e.Request.URL] = e
		var sum float64
		for _, v := range []float64{e.Timings.Blocked, e.Timings.DNS, e.Timings.Connect, e.Timings.Send, e.Timings.Wait, e.Timings.Receive} {
			sum += max(v, 0)
		}
		if math.Abs(sum-e.Time) > 1e-9 {
			t.Errorf("%s: timings add up to %v, time %v", e.Request.URL, sum, e.Time)
		}
	}
	want := map[string]Timings{
		"https://a.test/api/new":    {Blocked: 874.6 - 860.5, DNS: 2.1, Connect: 31.5, SSL: 18.2, Wait: 812.3, Receive: 14.6},
		"https://a.test/api/reused": {Blocked: 10, DNS: -1, Connect: -1, SSL: -1, Wait: 300, Receive: 10},
		"https://b.test/x":          {Blocked: -1, DNS: -1, Connect: -1, SSL: -1, Wait: 50},
	}
	for url, w := range want {
		g := got[url].Timings
		if math.Abs(g.Blocked-w.Blocked) > 1e-9 || g.DNS != w.DNS || g.Connect != w.Connect || g.SSL != w.SSL || g.Wait != w.Wait || g.Receive != w.Receive {
			t.Errorf("%s: timings %+v, want %+v", url, g, w)
		}
	}
	if e := got["https://a.test/api/new"]; math.Abs(e.Time-874.6) > 1e-9 {
		t.Errorf("a fetch's time is its duration to the headers and its download: %v, want 874.6", e.Time)
	}
}
