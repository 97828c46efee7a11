package apicontract

import (
	"encoding/json"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// FuzzObserve feeds page-controlled bodies and URLs to the tracker: it
// must not panic, and what it reports must stay valid JSON.
func FuzzObserve(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[{"a":{"b":{"c":{"d":[1]}}}}]`, `{"1":{"x":null},"2":{}}`, `{"a":`, `[]`} {
		f.Add(s, "/api/x/1")
	}
	f.Fuzz(func(t *testing.T, body, path string) {
		tr := New()
		for i := range 5 {
			tr.Observe(capture.NetworkBody{Method: "GET", URL: "https://a.io" + path, Status: 200 + i%2*300, ContentType: "application/json", ResponseBody: body})
		}
		for _, v := range []any{tr.Analyze(Options{}), tr.Report(Options{})} {
			if b, err := json.Marshal(v); err != nil || !json.Valid(b) {
				t.Fatalf("%v: %s", err, b)
			}
		}
	})
}
