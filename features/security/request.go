package security

import (
	"sync"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// RequestSecret is the check for one request as it is made: the rule of
// the first credential the audit finds in its URL or body, or "" when it
// carries none. Context streaming asks it of every new request.
func RequestSecret(method, url, body string) string {
	in := Input{Bodies: []Request{{NetworkBody: capture.NetworkBody{Method: method, URL: url, RequestBody: body}}}}
	for _, f := range Audit(in, Options{Checks: []string{Credentials}}).Findings {
		if f.In == "url" || f.In == "request_body" {
			return f.Rule
		}
	}
	return ""
}

// SecretMemo is RequestSecret remembering the last request it looked at.
// Context streaming hands one entry to every session's streamer in turn,
// so with several sessions streaming, the audit, the costly part of
// ingest, runs once for all of them. Its zero value is ready to use.
type SecretMemo struct {
	mu                      sync.Mutex
	method, url, body, last string
	valid                   bool
}

// Kind is RequestSecret(method, url, body), from memory when the request
// is the one asked about last.
func (m *SecretMemo) Kind(method, url, body string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.valid || m.method != method || m.url != url || m.body != body {
		m.method, m.url, m.body, m.last, m.valid = method, url, body, RequestSecret(method, url, body), true
	}
	return m.last
}
