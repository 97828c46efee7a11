package apicontract

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

func TestEndpointGrouping(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.io/api/users/123":                                    "GET /api/users/:id",
		"https://a.io/api/users/123/orders/456":                         "GET /api/users/:id/orders/:id",
		"https://a.io/items/550e8400-e29b-41d4-a716-446655440000":       "GET /items/:id",
		"https://a.io/assets/a1b2c3d4e5":                                "GET /assets/:id",
		"https://a.io/commits/2fd4e1c67a2d28fced849ee1bb76e7391b93eb12": "GET /commits/:id",
		"https://a.io/api/products?page=2&sort=price":                   "GET /api/products",
		"https://a.io/api/users/me#top":                                 "GET /api/users/me",
		"https://a.io/api/feedback/deadface":                            "GET /api/feedback/deadface",
		"https://a.io/api/v2/users":                                     "GET /api/v2/users",
		"https://a.io/s/V1StGXR8Z5jdHi6BmyT3q":                          "GET /s/:id",
		"/api/users/7":                                                  "GET /api/users/:id",
		"https://a.io":                                                  "GET /",
	} {
		if got := Endpoint("get", in); got != want {
			t.Errorf("Endpoint(%q) = %q, want %q", in, got, want)
		}
	}
}

func shapeJSON(t *testing.T, body string) string {
	t.Helper()
	s, ok := Extract(body)
	if !ok {
		t.Fatalf("no shape for %s", body)
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func TestShapeExtraction(t *testing.T) {
	for body, want := range map[string]string{
		`{"id":1,"name":"a","ok":true,"x":null}`:  `{"id":"number","name":"string","ok":"boolean","x":"null"}`,
		`[{"id":1,"tags":["a"]},{"other":2}]`:     `[{"id":"number","tags":["string"]}]`,
		`{"a":{"b":{"c":{"d":1}}}}`:               `{"a":{"b":{"c":"object"}}}`,
		`{"a":{"b":{"c":[1]}}}`:                   `{"a":{"b":{"c":"array"}}}`,
		`{"list":[]}`:                             `{"list":[]}`,
		`{"42":{"n":"a"},"43":{"n":"b"},"44":{}}`: `{":id":{"n":"string"}}`,
		` {"a":1} `: `{"a":"number"}`,
	} {
		if got := shapeJSON(t, body); got != want {
			t.Errorf("shape of %s = %s, want %s", body, got, want)
		}
	}
	for _, bad := range []string{"", "<html></html>", `{"a":1`, `"just a string"`, "[Binary: 10 bytes]"} {
		if _, ok := Extract(bad); ok {
			t.Errorf("Extract(%q) gave a shape", bad)
		}
	}
	var wide strings.Builder
	wide.WriteString("{")
	for i := range 500 {
		fmt.Fprintf(&wide, `"field_%d":{"a":1,"b":[{"c":1}]},`, i)
	}
	wide.WriteString(`"z":1}`)
	s, ok := Extract(wide.String())
	if !ok || len(s.Fields) > maxFields {
		t.Errorf("wide object: ok %v, %d fields", ok, len(s.Fields))
	}
}

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// feed observes responses of one endpoint, a second apart.
func feed(tr *Tracker, method, url string, status int, bodies ...string) {
	for _, b := range bodies {
		tr.Observe(capture.NetworkBody{TS: capture.Time{Time: t0.Add(time.Duration(tr.requests) * time.Second)},
			Method: method, URL: url, Status: status, ContentType: "application/json", ResponseBody: b})
	}
}

func types(a Analysis) []string {
	var out []string
	for _, e := range a.Endpoints {
		for _, v := range e.Violations {
			out = append(out, e.Endpoint+" "+v.Type+" "+v.Severity)
		}
	}
	return out
}

const product = `[{"id":1,"name":"Mug","price":9.5}]`

func TestViolationTypes(t *testing.T) {
	cases := []struct {
		name   string
		bodies []string
		want   string // "type severity", or "" for none
		check  func(Violation) bool
	}{
		{"type change on the 5th call", []string{`{"price":9.5}`, `{"price":1}`, `{"price":2}`, `{"price":3}`, `{"price":"19.99"}`},
			"type_change warning", func(v Violation) bool {
				return v.Field == "price" && v.Expected == "number" && v.Actual == "string" && v.Established == 4
			}},
		{"missing field", []string{`{"id":1,"avatar_url":"a"}`, `{"id":2,"avatar_url":"b"}`, `{"id":3,"avatar_url":"c"}`, `{"id":4}`},
			"shape_change warning", func(v Violation) bool { return strings.Join(v.Fields, ",") == "avatar_url" }},
		{"new field", []string{`{"id":1}`, `{"id":2}`, `{"id":3}`, `{"id":4,"bio":"x"}`},
			"new_field info", func(v Violation) bool { return strings.Join(v.Fields, ",") == "bio" }},
		{"null field", []string{`{"id":1,"bio":"a"}`, `{"id":2,"bio":"b"}`, `{"id":3,"bio":"c"}`, `{"id":4,"bio":null}`},
			"null_field info", func(v Violation) bool { return v.Field == "bio" && v.Expected == "string" }},
		{"object to null is a type change", []string{`{"user":{"id":1}}`, `{"user":{"id":2}}`, `{"user":{"id":3}}`, `{"user":null}`},
			"type_change warning", func(v Violation) bool { return v.Field == "user" && v.Actual == "null" }},
		{"array elements lose a field", []string{product, product, product, `[{"id":1,"name":"Mug"}]`},
			"array_shape_change warning", func(v Violation) bool { return strings.Join(v.Fields, ",") == "[].price" }},
		{"array elements change kind", []string{`{"tags":[{"id":1}]}`, `{"tags":[{"id":1}]}`, `{"tags":[{"id":1}]}`, `{"tags":["a"]}`},
			"array_shape_change warning", func(v Violation) bool { return v.Field == "tags[]" && v.Expected == "object" && v.Actual == "string" }},
		{"type change inside array elements", []string{product, product, product, `[{"id":1,"name":"Mug","price":"9.5"}]`},
			"type_change warning", func(v Violation) bool { return v.Field == "[].price" }},
		{"no violations while learning", []string{`{"a":1}`, `{"a":1}`, `{"b":"x"}`, `{"b":"x"}`}, "", nil},
		{"a null while learning does not restart it", []string{`{"a":1}`, `{"a":null}`, `{"a":2}`, `{}`},
			"shape_change warning", nil},
		{"a field first seen null gets its type", []string{`{"a":null}`, `{"a":null}`, `{"a":null}`, `{"a":1}`, `{"a":"x"}`},
			"type_change warning", func(v Violation) bool { return v.Expected == "number" && v.Actual == "string" }},
		{"same shape stays clean", []string{product, product, product, product, `[]`}, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := New()
			feed(tr, "GET", "https://a.io/api/products", 200, c.bodies...)
			a := tr.Analyze(Options{})
			got := types(a)
			if c.want == "" {
				if len(got) != 0 {
					t.Fatalf("violations %v", got)
				}
				return
			}
			if len(got) != 1 || got[0] != "GET /api/products "+c.want {
				t.Fatalf("violations %v, want %s", got, c.want)
			}
			v := a.Endpoints[0].Violations[0]
			if c.check != nil && !c.check(v) {
				t.Errorf("violation %+v", v)
			}
			if v.Count != 1 || !v.First.Equal(t0.Add(time.Duration(len(c.bodies)-1)*time.Second)) {
				t.Errorf("occurrences %+v", v)
			}
		})
	}
}

func TestShapeChangeSeverityFollowsN(t *testing.T) {
	if shapeChangeSeverity(3) != "warning" || shapeChangeSeverity(2) != "info" {
		t.Error("shape_change: warning if N >= 3, info below")
	}
}

func TestRepeatedViolationsAreCounted(t *testing.T) {
	tr := New()
	feed(tr, "GET", "https://a.io/p", 200, `{"a":1}`, `{"a":1}`, `{"a":1}`, `{"a":"x"}`, `{"a":1}`, `{"a":"y"}`)
	v := tr.Analyze(Options{}).Endpoints[0].Violations
	if len(v) != 1 || v[0].Count != 2 || v[0].Last == nil || !v[0].Last.Equal(t0.Add(5*time.Second)) {
		t.Errorf("%+v", v)
	}
	if c := tr.Report(Options{}).Endpoints[0].Consistency; c != "66%" { // 4 of 6 matched
		t.Errorf("consistency %s", c)
	}
}

func TestErrorSpike(t *testing.T) {
	tr := New()
	feed(tr, "POST", "https://a.io/api/orders", 201, `{"id":1}`, `{"id":2}`, `{"id":3}`)
	feed(tr, "POST", "https://a.io/api/orders", 500, `{"error":"db"}`, `{"error":"db"}`)
	feed(tr, "GET", "https://a.io/api/cart", 200, `{"n":1}`)
	feed(tr, "GET", "https://a.io/api/cart", 401, `{"error":"login"}`)
	feed(tr, "GET", "https://a.io/api/fails", 500, `{"error":"x"}`) // never succeeded: no spike
	a := tr.Analyze(Options{})
	got := strings.Join(types(a), "; ")
	if got != "POST /api/orders error_spike critical; GET /api/cart error_spike warning" {
		t.Fatalf("%s", got)
	}
	v := a.Endpoints[0].Violations[0]
	if fmt.Sprint(v.StatusHistory) != "[201 201 201 500 500]" || v.Successes != 3 || v.Count != 2 || !v.First.Equal(t0.Add(3*time.Second)) ||
		v.Last == nil || !v.Last.Equal(t0.Add(4*time.Second)) {
		t.Errorf("%+v", v)
	}
	// Errors do not touch the shape: the endpoint is still established.
	if r := tr.Report(Options{URLFilter: "orders"}).Endpoints[0]; r.Learning || r.StatusCodes["500"] != 2 || r.StatusCodes["201"] != 3 {
		t.Errorf("%+v", r)
	}
	feed(tr, "POST", "https://a.io/api/orders", 201, `{"id":4}`)
	if got := types(tr.Analyze(Options{URLFilter: "orders"})); len(got) != 0 {
		t.Errorf("recovered endpoint still spiking: %v", got)
	}
}

func TestStatusHistoryKeepsTwenty(t *testing.T) {
	tr := New()
	for range 30 {
		feed(tr, "GET", "https://a.io/x", 200, `{}`)
	}
	feed(tr, "GET", "https://a.io/x", 503, `{}`)
	v := tr.Analyze(Options{}).Endpoints[0].Violations[0]
	if len(v.StatusHistory) != StatusHistory || v.Successes != 19 || tr.Report(Options{}).Endpoints[0].Calls != 31 {
		t.Errorf("%+v", v)
	}
}

func TestReportShowsShapesNeverValues(t *testing.T) {
	tr := New()
	feed(tr, "GET", "https://a.io/api/users/42", 200,
		`{"id":42,"email":"jo@secret-mail.io","name":"Jo Secretname"}`, `{"id":43,"email":"al@secret-mail.io","name":"Al"}`)
	r := tr.Report(Options{})
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "secret") || strings.Contains(string(b), "Jo") {
		t.Errorf("values in report: %s", b)
	}
	want := `{"endpoints":[{"endpoint":"GET /api/users/:id","call_count":2,"status_codes":{"200":2},"shape":{"email":"string","id":"number","name":"string"},"learning":true,"consistency":"100%","last_called":"2026-11-22T10:00:01.000Z"}]}`
	if string(b) != want {
		t.Errorf("report\n got %s\nwant %s", b, want)
	}
}

func TestAtMostThirtyEndpointsLeastRecentlyCalledGoesFirst(t *testing.T) {
	tr := New()
	for i := range MaxEndpoints {
		feed(tr, "GET", fmt.Sprintf("https://a.io/api/r%c", 'a'+i), 200, `{}`)
	}
	feed(tr, "GET", "https://a.io/api/ra", 200, `{}`) // ra is now the most recent; rb the oldest
	feed(tr, "GET", "https://a.io/api/new", 200, `{}`)
	r := tr.Report(Options{})
	if len(r.Endpoints) != MaxEndpoints || r.Evicted != 1 {
		t.Fatalf("%d endpoints, evicted %d", len(r.Endpoints), r.Evicted)
	}
	names := map[string]bool{}
	for _, e := range r.Endpoints {
		names[e.Endpoint] = true
	}
	if names["GET /api/rb"] || !names["GET /api/ra"] || !names["GET /api/new"] || r.Endpoints[0].Endpoint != "GET /api/new" {
		t.Errorf("kept %v", names)
	}
	if tr.Analyze(Options{}).Evicted != 1 {
		t.Error("analyze does not say an endpoint was evicted")
	}
}

func TestNonJSONResponsesDoNotCreateEndpoints(t *testing.T) {
	tr := New()
	tr.Observe(capture.NetworkBody{Method: "GET", URL: "https://a.io/index.html", Status: 200, ContentType: "text/html", ResponseBody: "<html>"})
	tr.Observe(capture.NetworkBody{Method: "GET", URL: "https://a.io/app.js", Status: 200, ContentType: "text/javascript", ResponseBody: "x()"})
	tr.Observe(capture.NetworkBody{Method: "GET", URL: "https://a.io/api/x", Status: 0}) // never answered
	if n := len(tr.Report(Options{}).Endpoints); n != 0 {
		t.Errorf("%d endpoints", n)
	}
	// A JSON endpoint keeps counting its non-JSON error pages and empty bodies.
	feed(tr, "GET", "https://a.io/api/x", 200, `{"a":1}`, `{"a":1}`, `{"a":1}`)
	tr.Observe(capture.NetworkBody{Method: "GET", URL: "https://a.io/api/x", Status: 502, ContentType: "text/html", ResponseBody: "<h1>Bad gateway</h1>"})
	tr.Observe(capture.NetworkBody{Method: "GET", URL: "https://a.io/api/x", Status: 200, ResponseBody: `{"a":1,"trunc`, Truncated: true})
	a := tr.Analyze(Options{})
	if got := types(a); len(got) != 0 || tr.Report(Options{}).Endpoints[0].Calls != 5 {
		t.Errorf("%v", got)
	}
}

func TestFiltersAndClear(t *testing.T) {
	tr := New()
	feed(tr, "GET", "https://a.io/health", 200, `{"ok":true}`)
	feed(tr, "GET", "https://a.io/api/users/1", 200, `{"id":1}`)
	feed(tr, "GET", "https://b.io/metrics", 200, `{"n":1}`)
	if r := tr.Report(Options{Ignore: []string{"/health", "/metrics"}}); len(r.Endpoints) != 1 || r.Endpoints[0].Endpoint != "GET /api/users/:id" {
		t.Errorf("ignore: %+v", r)
	}
	if r := tr.Report(Options{URLFilter: "b.io"}); len(r.Endpoints) != 1 || r.Endpoints[0].Endpoint != "GET /metrics" {
		t.Errorf("url_filter: %+v", r)
	}
	if a := tr.Analyze(Options{URLFilter: "/api/"}); a.Tracked != 1 || a.Learning != 1 || a.Requests != 3 {
		t.Errorf("analyze: %+v", a)
	}
	tr.Clear()
	if a := tr.Analyze(Options{}); a.Tracked != 0 || a.Requests != 0 {
		t.Errorf("after clear: %+v", a)
	}
}

func TestAtMostTenViolationsPerEndpoint(t *testing.T) {
	tr := New()
	var base, broken []string
	for i := range 15 {
		base = append(base, fmt.Sprintf(`"f%d":1`, i))
		broken = append(broken, fmt.Sprintf(`"f%d":"x"`, i))
	}
	b := "{" + strings.Join(base, ",") + "}"
	feed(tr, "GET", "https://a.io/w", 200, b, b, b, "{"+strings.Join(broken, ",")+"}")
	e := tr.Analyze(Options{}).Endpoints[0]
	if len(e.Violations) != MaxViolations || e.Dropped != 5 {
		t.Errorf("%d violations, dropped %d", len(e.Violations), e.Dropped)
	}
}

func TestConcurrentObserveAndAnalyze(t *testing.T) {
	tr := New()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				tr.Observe(capture.NetworkBody{Method: "GET", URL: fmt.Sprintf("https://a.io/g%d/e%d", g, i%40), Status: 200, ResponseBody: `{"a":1}`})
				if i%20 == 0 {
					tr.Analyze(Options{})
					tr.Report(Options{})
				}
			}
		}()
	}
	wg.Wait()
	if n := len(tr.Report(Options{}).Endpoints); n != MaxEndpoints {
		t.Errorf("%d endpoints", n)
	}
}

func TestResultsHaveNoNulls(t *testing.T) {
	tr := New()
	for _, v := range []any{tr.Analyze(Options{}), tr.Report(Options{})} {
		b, _ := json.Marshal(v)
		if strings.Contains(string(b), "null") {
			t.Errorf("%s", b)
		}
	}
}

func TestLineSummarisesTheAnalysis(t *testing.T) {
	tr := New()
	feed(tr, "GET", "https://a.io/p", 200, `{"a":1}`, `{"a":1}`, `{"a":1}`, `{"a":"x"}`)
	feed(tr, "GET", "https://a.io/q", 200, `{"a":1}`)
	if got := tr.Analyze(Options{}).Line(); got != "1 violations on 1 of 2 endpoints (1 learning), 5 responses" {
		t.Errorf("%q", got)
	}
}
