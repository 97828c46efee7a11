package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// The server scrubs again on ingest: an entry that arrives with its secrets
// (an old extension, a script posting to the port) is stored redacted.
func TestIngestStoresSecretsRedacted(t *testing.T) {
	s, base := startServer(t)
	posts := []call{
		{method: "POST", path: "/network-bodies", body: `{"bodies":[{"method":"POST","url":"http://app.test/login?token=SEC1",
			"content_type":"application/json","request_body":"{\"user\":\"bob\",\"password\":\"SEC2\"}",
			"response_body":"{\"access_token\":\"SEC3\"}","request_headers":{"x-forwarded-authorization":"Bearer SEC4"}}]}`},
		{method: "POST", path: "/network", body: `{"entries":[{"method":"GET","url":"http://app.test/x?api_key=SEC5"}]}`},
		{method: "POST", path: "/actions", body: `{"actions":[{"type":"input","selector":"input[name=\"pass\"]","input_type":"text","value":"SEC6"}]}`},
		{method: "POST", path: "/websocket-events", body: `{"events":[{"event":"open","id":"w","url":"ws://app.test/ws?sid=SEC7"}]}`},
		{method: "POST", path: "/page", body: `{"tab":1,"url":"http://app.test/?client_secret=SEC8"}`},
	}
	for _, c := range posts {
		if got, out := do(t, base, c); got != 200 {
			t.Fatalf("%s: %d %v", c.path, got, out)
		}
	}
	st := s.Store()
	page, _ := st.Page()
	stored, _ := json.Marshal([]any{st.Bodies(capture.Query{}), st.Network(capture.Query{}), st.Actions(capture.Query{}),
		st.WSEvents(capture.Query{}), page})
	if strings.Contains(string(stored), "SEC") {
		t.Fatalf("a secret was stored: %s", stored)
	}
	if n := strings.Count(string(stored), "[redacted]"); n != 7 { // the input's value is dropped, not redacted
		t.Fatalf("want 7 values redacted, got %d: %s", n, stored)
	}
}
