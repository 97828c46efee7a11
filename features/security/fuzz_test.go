package security

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// FuzzAudit feeds page-controlled text (bodies, URLs, console output) to a
// full audit: it must not panic, and a planted secret must never come out
// whole.
func FuzzAudit(f *testing.F) {
	for _, s := range []string{`{"email":"a@b.io","password":"hunter2hunter2"}`, `[[[{"a":"\"}`, "-----BEGIN RSA PRIVATE KEY-----", `{"k":"` + awsKey + `"`, "Bearer " + jwt, "?token=" + bearerTok} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text := s + " " + stripe
		in := Input{
			Bodies:  []Request{{NetworkBody: capture.NetworkBody{Method: "POST", URL: "https://x.io/a?q=" + s, RequestBody: text, ResponseBody: text, Status: 200}, Auth: AuthAbsent}},
			Network: []capture.NetworkEntry{{Method: "GET", URL: "http://x.io/" + s + "?api_key=" + stripe, Page: "https://" + s}},
			Logs:    []capture.LogEntry{{Level: "log", Message: text, Args: []string{s}}},
			WS:      []capture.WSEvent{{Event: "message", ID: "1", URL: "ws://x.io/" + s, Data: text, Direction: "outgoing"}},
		}
		out, err := json.Marshal(Audit(in, Options{SeverityMin: Info}))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), stripe) {
			t.Fatalf("secret in output: %s", out)
		}
	})
}
