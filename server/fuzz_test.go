package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzIngest throws arbitrary bodies at every ingest route: the server must
// answer 200 or a 4xx with a JSON problem, and never panic.
func FuzzIngest(f *testing.F) {
	seeds := []string{
		`{"entries":[{"ts":1700000000000,"level":"error","kind":"exception","message":"x","stack":"s","args":["a"]}]}`,
		`{"entries":[{"method":"GET","url":"http://x","status":200,"duration_ms":1.5}]}`,
		`{"bodies":[{"method":"POST","url":"u","request_headers":{"Authorization":"x"},"response_body":"{}"}]}`,
		`{"events":[{"event":"message","id":"c","direction":"incoming","data":"hi"}]}`,
		`{"actions":[{"type":"input","selector":"#pw","input_type":"password","value":"secret"}]}`,
		`{"tab":1,"url":"http://x","title":"t"}`,
		`{"entries":[{"ts":"2024-01-01T00:00:00Z"}]}`, `[]`, `null`, `{"entries":null}`, `{"entries":[null]}`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	s := New(Config{Version: "fuzz"})
	s.port.Store(7890)
	h := s.Handler()
	paths := []string{"/logs", "/network", "/network-bodies", "/websocket-events", "/actions", "/page"}
	f.Fuzz(func(t *testing.T, body string) {
		for _, p := range paths {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7890"+p, strings.NewReader(body))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 && (rec.Code < 400 || rec.Code > 499) {
				t.Fatalf("%s: status %d for %q", p, rec.Code, body)
			}
			if rec.Code != 200 && !strings.Contains(rec.Body.String(), `"error"`) {
				t.Fatalf("%s: %d without a problem body: %s", p, rec.Code, rec.Body)
			}
		}
	})
}
