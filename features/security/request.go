package security

import "github.com/gasoline-dev/gasoline/features/capture"

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
