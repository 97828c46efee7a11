package streaming

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
)

func TestOffByDefault(t *testing.T) {
	s := New(Options{})
	if c := s.Config(); c.Enabled || c.ThrottleSeconds != DefaultThrottle || !reflect.DeepEqual(c.Events, Categories) {
		t.Fatalf("default config %+v", c)
	}
	s.Observe(req(0, "GET", "http://x/api", 500))
	if n, next := s.Tick(t0.Add(time.Hour)); n != nil || !next.IsZero() {
		t.Fatalf("a disabled streamer notified: %v %v", n, next)
	}
}

func TestConfigure(t *testing.T) {
	tests := []struct {
		name string
		u    []Update
		want Config
		code problem.Code
	}{
		{"enable with defaults", []Update{{Enabled: ptr(true)}},
			Config{Enabled: true, Events: Categories, ThrottleSeconds: 5}, ""},
		{"fields left out keep their value", []Update{
			{Enabled: ptr(true), ThrottleSeconds: 10, URLFilter: ptr("/api")}, {Events: []string{Errors}},
		}, Config{Enabled: true, Events: []string{Errors}, ThrottleSeconds: 10, URLFilter: "/api"}, ""},
		{"events in fixed order without repeats", []Update{{Events: []string{Security, Errors, Security}}},
			Config{Events: []string{Errors, Security}, ThrottleSeconds: 5}, ""},
		{"empty events means all", []Update{{Events: []string{Errors}}, {Events: []string{}}},
			Config{Events: Categories, ThrottleSeconds: 5}, ""},
		{"empty url_filter clears it", []Update{{URLFilter: ptr("/api")}, {URLFilter: ptr("")}},
			Config{Events: Categories, ThrottleSeconds: 5}, ""},
		{"throttle bounds", []Update{{ThrottleSeconds: 1}, {ThrottleSeconds: 60}},
			Config{Events: Categories, ThrottleSeconds: 60}, ""},
		{"throttle too high", []Update{{ThrottleSeconds: 61}}, Config{}, problem.InvalidParam},
		{"throttle negative", []Update{{ThrottleSeconds: -1}}, Config{}, problem.InvalidParam},
		{"unknown category", []Update{{Events: []string{"errors", "console"}}}, Config{}, problem.InvalidParam},
		{"url_filter too long", []Update{{URLFilter: ptr(string(make([]byte, MaxURLFilter+1)))}}, Config{}, problem.InvalidParam},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{})
			var got Config
			var err error
			for _, u := range tc.u {
				if got, err = s.Configure(u); err != nil {
					break
				}
			}
			if tc.code != "" {
				var p *problem.Error
				if !errors.As(err, &p) || p.Code != tc.code {
					t.Fatalf("want %s, got %v", tc.code, err)
				}
				if c := s.Config(); c.Enabled || c.ThrottleSeconds != DefaultThrottle {
					t.Errorf("a rejected update changed the config: %+v", c)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(s.Config(), tc.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestNotificationJSON(t *testing.T) {
	r := newRig(t, Update{})
	r.at(0, req(0, "POST", "http://localhost:3000/api/users?x=1", 500),
		capture.NetworkBody{TS: at(0), Method: "POST", URL: "http://localhost:3000/api/users?x=1", Status: 500,
			ResponseBody: `{"error":"Internal server error"}`, Page: page})
	r.until(sec(3))
	r.at(sec(10), req(10000, "GET", "http://localhost:3000/api/me", 200), req(10001, "GET", "http://localhost:3000/api/me", 403),
		click(10002, "#save"), click(10003, "#save"), click(10004, "#save"))
	r.until(sec(20))
	if len(r.got) != 2 {
		t.Fatalf("want 2 notifications, got %d", len(r.got))
	}
	want := []string{
		`{"category":"network_errors","severity":"error","message":"Server error: POST /api/users → 500","timestamp":"2026-01-20T14:30:00.000Z",` +
			`"context":{"method":"POST","url":"/api/users","status":500,"response_preview":"{\"error\":\"Internal server error\"}","tab":1}}`,
		`{"severity":"warning","message":"2 browser events: network_errors, user_frustration","timestamp":"2026-01-20T14:30:10.001Z","events":[` +
			`{"category":"network_errors","severity":"warning","message":"Auth/access issue: GET /api/me → 403 (was 200)","timestamp":"2026-01-20T14:30:10.001Z",` +
			`"context":{"method":"GET","url":"/api/me","status":403,"previous_status":200,"tab":1}},` +
			`{"category":"user_frustration","severity":"warning","message":"Repeated clicks on #save — handler may be broken","timestamp":"2026-01-20T14:30:10.004Z",` +
			`"context":{"selector":"#save","clicks":3,"page":"http://localhost:3000/shop","tab":1}}]}`,
	}
	for i, d := range r.got {
		b, err := json.Marshal(d.n)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want[i] {
			t.Errorf("notification %d:\n got %s\nwant %s", i, b, want[i])
		}
		// What mcp-go sends from Params must read the same.
		pb, err := json.Marshal(d.n.Params())
		if err != nil {
			t.Fatal(err)
		}
		var fromParams, fromType any
		json.Unmarshal(pb, &fromParams)
		json.Unmarshal(b, &fromType)
		if !reflect.DeepEqual(fromParams, fromType) {
			t.Errorf("Params %d:\n got %s\nwant %s", i, pb, b)
		}
	}
}

// TestRun drives the real loop: delivery on the injected clock, woken by
// Observe, and a clean exit when its context ends.
func TestRun(t *testing.T) {
	clk := &syncClock{t: t0}
	s := New(Options{Now: clk.now})
	if _, err := s.Configure(Update{Enabled: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan Notification, 10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx, func(n Notification) { got <- n })
	}()
	s.Observe(req(0, "GET", "http://localhost:3000/api/x", 500))
	clk.set(t0.Add(BatchWindow))
	s.kick() // what Run's timer would do at the due time
	select {
	case n := <-got:
		if n.Message != "Server error: GET /api/x → 500" {
			t.Errorf("got %q", n.Message)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not deliver a due notification")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

type syncClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *syncClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *syncClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func TestStateIsBounded(t *testing.T) {
	r := newRig(t, Update{})
	for i := range 5000 {
		r.s.Observe(consoleErr(i, fmt.Sprintf("error kind %c%c%c", 'a'+i%26, 'a'+i/26%26, 'a'+i/676%26)))
		r.s.Observe(req(i, "GET", fmt.Sprintf("http://localhost:3000/api/e%c%c%c", 'a'+i%26, 'a'+i/26%26, 'a'+i/676%26), 200))
		r.s.Observe(req(i, "GET", fmt.Sprintf("http://localhost:3000/api/k%d?AKIA", i), 200))
		r.s.Observe(click(i, fmt.Sprintf("#b%d", i)))
		r.s.Observe(capture.NetworkEntry{TS: at(i), Method: "GET", URL: "http://x/", Status: 200, TabID: i})
		r.s.Observe(FormSubmit{TS: at(i), Action: fmt.Sprintf("/f%d", i), TabID: 100000 + i})
	}
	st := r.s.st
	for name, c := range map[string][2]int{
		"seen errors": {st.seenErrors.len(), seenErrorCap},
		"endpoints":   {st.endpoints.len(), endpointCap},
		"secrets":     {st.secrets.len(), endpointCap},
		"selectors":   {st.clicks.len(), selectorCap},
		"tabs":        {st.responses.len(), tabCap},
		"submits":     {len(st.submits), maxSubmits},
		"pending":     {len(st.pending), MaxPending},
	} {
		if c[0] > c[1] {
			t.Errorf("%s: %d held, cap %d", name, c[0], c[1])
		}
		if c[0] < c[1] {
			t.Errorf("%s: %d held, want the cap %d (the test should fill it)", name, c[0], c[1])
		}
	}
	r.until(10 * time.Minute)
	if st.dedup.len() > dedupCap {
		t.Errorf("dedup: %d held, cap %d", st.dedup.len(), dedupCap)
	}
}

// Ingest goroutines, configure calls and the Run loop at once (for the race
// detector); after them the streamer is in the state the last configure
// left, and still notifies.
func TestConcurrentObserve(t *testing.T) {
	s := New(Options{Secrets: fakeSecrets})
	s.Configure(Update{Enabled: ptr(true), ThrottleSeconds: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx, func(Notification) {})
	}()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				s.ObserveEvent(capture.Event{Entry: req(i, "GET", fmt.Sprintf("http://localhost:3000/api/%d/%d?AKIA", g, i), 500)})
				s.Observe(consoleErr(i, fmt.Sprintf("e%d", i)))
				if g == 0 && i%100 == 0 {
					s.Configure(Update{Enabled: ptr(i%200 == 0)})
				}
			}
		}()
	}
	wg.Wait()
	cancel()
	<-done
	if c := s.Config(); !c.Enabled || c.ThrottleSeconds != 1 || !s.on.Load() {
		t.Fatalf("after the race: %+v, on %v; the last configure turned it on", c, s.on.Load())
	}
	later := time.Now().Add(time.Hour)
	s.Tick(later) // what the race left pending
	if n, next := s.Tick(later.Add(time.Hour)); n != nil || !next.IsZero() {
		t.Fatalf("still pending after a delivery: %+v, next %v", n, next)
	}
	s.Observe(consoleErr(0, "after the race"))
	if n, _ := s.Tick(later.Add(2 * time.Hour)); n == nil || !strings.Contains(n.Message, "after the race") {
		t.Fatalf("an error after the race: %+v", n)
	}
}
