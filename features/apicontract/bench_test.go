package apicontract

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// wideBody is a response of about 16 KB (the capture cap) whose shape fills
// the node budget: many fields, nested objects, arrays of records.
func wideBody(variant int) string {
	var b strings.Builder
	b.WriteString(`{"meta":{"page":1,"total":1000,"links":{"next":"/p2","prev":null}},"items":[`)
	for i := 0; b.Len() < capture.MaxResponseBody-300; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		price := `19.99`
		if variant == 1 {
			price = `"19.99"`
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"Item %d","price":%s,"stock":{"warehouse":"A","count":%d},"tags":["x","y"],"rating":4.5}`, i, i, price, i)
	}
	b.WriteString(`]`)
	for i := range 40 {
		fmt.Fprintf(&b, `,"attr_%d":{"a":%d,"b":"s","c":[1,2],"d":{"e":true}}`, i, i)
	}
	b.WriteString(`}`)
	return b.String()
}

// fullTracker has MaxEndpoints endpoints, each established with a shape at
// the node budget, a full status history and violations.
func fullTracker() *Tracker {
	tr := New()
	ok, broken := wideBody(0), wideBody(1)
	for e := range MaxEndpoints {
		u := fmt.Sprintf("https://api.shop.io/api/resource%d/%d", e, e)
		for i := range StatusHistory {
			body, status := ok, 200
			switch {
			case i == StatusHistory-3:
				body = broken
			case i >= StatusHistory-2 && e%2 == 0:
				status = 500
			}
			tr.Observe(capture.NetworkBody{Method: "GET", URL: u, Status: status, ContentType: "application/json", ResponseBody: body})
		}
	}
	return tr
}

// BenchmarkAnalyzeFullTracker is contract analysis over a full tracker
// (goal < 5 ms).
func BenchmarkAnalyzeFullTracker(b *testing.B) {
	tr := fullTracker()
	for b.Loop() {
		tr.Analyze(Options{})
	}
}

// BenchmarkReportFullTracker renders every shape of a full tracker.
func BenchmarkReportFullTracker(b *testing.B) {
	tr := fullTracker()
	for b.Loop() {
		r := tr.Report(Options{})
		if _, err := json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObserve16KB is the per-body cost paid as bodies are captured.
func BenchmarkObserve16KB(b *testing.B) {
	tr := New()
	body := capture.NetworkBody{Method: "GET", URL: "https://api.shop.io/api/items", Status: 200, ContentType: "application/json", ResponseBody: wideBody(0)}
	b.SetBytes(int64(len(body.ResponseBody)))
	for b.Loop() {
		tr.Observe(body)
	}
}

func TestFullTrackerIsBoundedAndFindsThePlantedViolations(t *testing.T) {
	tr := fullTracker()
	a := tr.Analyze(Options{})
	if a.Tracked != MaxEndpoints || len(a.Endpoints) != MaxEndpoints {
		t.Fatalf("%d tracked, %d with violations", a.Tracked, len(a.Endpoints))
	}
	spikes := 0
	for _, e := range a.Endpoints {
		for _, v := range e.Violations {
			if v.Type == ErrorSpike {
				spikes++
			}
		}
	}
	if spikes != MaxEndpoints/2 {
		t.Errorf("%d error spikes", spikes)
	}
	rep := tr.Report(Options{})
	r, _ := json.Marshal(rep)
	if len(r) > 50<<10 || len(rep.Endpoints) != MaxEndpoints || !rep.Endpoints[MaxEndpoints-1].ShapeOmitted || rep.Endpoints[0].Shape == nil {
		t.Errorf("report of %d bytes over the 50 KB cap, or shapes not omitted oldest first", len(r))
	}
	one, _ := json.Marshal(tr.Report(Options{URLFilter: "resource0/"}))
	if !strings.Contains(string(one), `"shape":{`) {
		t.Errorf("filtered report lacks the shape: %.300s", one)
	}
	s, _ := Extract(wideBody(0))
	if n := countNodes(s); n > maxNodes+1 {
		t.Errorf("shape has %d nodes", n)
	}
}

func countNodes(s *Shape) int {
	n := 1
	if s.Elem != nil {
		n += countNodes(s.Elem)
	}
	for _, f := range s.Fields {
		n += countNodes(f)
	}
	return n
}
