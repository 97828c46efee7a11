package security

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Secrets used across the tests. None contains a test marker, so each is
// flagged; the false-positive cases build their own.
const (
	apiKey    = "Zk29xQpL77mNbV31rT"
	awsKey    = "AKIA2JQXZ7HBK4MWQ3PL"
	awsSecret = "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"
	ghToken   = "ghp_R8fK2mQ9xLp4Tz7Wc1Vb6Nh3Jd5Gs0Ya2Ee8"
	stripe    = "sk_live_51HqLmN8pQ2rS4tU6vW8xY0zA"
	jwt       = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlX3ZhbHVlX2hlcmU"
	bearerTok = "q8Zr2LmP4xT7vN1sK9wB3cF6"
)

func body(method, url, req, resp string, status int, auth Auth) Request {
	return Request{NetworkBody: capture.NetworkBody{Method: method, URL: url, RequestBody: req, ResponseBody: resp,
		Status: status, ContentType: "application/json", Page: "https://shop.io/home"}, Auth: auth}
}

func logs(msgs ...string) []capture.LogEntry {
	var out []capture.LogEntry
	for _, m := range msgs {
		out = append(out, capture.LogEntry{Level: "log", Message: m, Source: "https://shop.io/auth.js:45:3", Page: "https://shop.io/home"})
	}
	return out
}

// hit is a rule found at a severity, in one place.
type hit struct{ rule, sev, in string }

func hits(r Report) []hit {
	var out []hit
	for _, f := range r.Findings {
		out = append(out, hit{f.Rule, f.Severity, f.In})
	}
	return out
}

var all = Options{SeverityMin: Info}

func TestAuditFindsWhatTheSpecTablesList(t *testing.T) {
	if len(awsSecret) != 40 {
		t.Fatalf("fixture: aws secret is %d chars", len(awsSecret))
	}
	cases := []struct {
		name   string
		in     Input
		opt    Options
		want   []hit
		secret string // must not appear in full in the output
	}{
		// Credential detection.
		{"api key in URL", Input{Network: []capture.NetworkEntry{{Method: "GET", URL: "https://api.shop.io/api/data?api_key=" + apiKey}}},
			Options{Checks: []string{Credentials}}, []hit{{"secret_in_url", Critical, "url"}}, apiKey},
		{"generic secret param", Input{Network: []capture.NetworkEntry{{Method: "GET", URL: "https://api.shop.io/x?client_secret=" + apiKey}}},
			Options{Checks: []string{Credentials}}, []hit{{"secret_param_in_url", Critical, "url"}}, apiKey},
		{"bearer token in URL", Input{Network: []capture.NetworkEntry{{Method: "GET", URL: "https://api.shop.io/x?auth=" + bearerTok}}},
			Options{Checks: []string{Credentials}}, []hit{{"token_in_url", Critical, "url"}}, bearerTok},
		{"a key the capture scrubbed is still a finding", Input{Network: []capture.NetworkEntry{{Method: "GET", URL: "https://api.shop.io/x?api_key=[redacted]&access_token=%5Bredacted%5D"}}},
			Options{Checks: []string{Credentials}}, []hit{{"secret_in_url", Critical, "url"}, {"secret_param_in_url", Critical, "url"}}, apiKey},
		{"token param is reported once", Input{Network: []capture.NetworkEntry{{Method: "GET", URL: "https://api.shop.io/x?token=" + bearerTok}}},
			Options{Checks: []string{Credentials}}, []hit{{"token_in_url", Critical, "url"}}, bearerTok},
		{"AWS access key in response", Input{Bodies: []Request{body("GET", "https://api.shop.io/cfg", "", `{"k":"`+awsKey+`"}`, 200, AuthPresent)}},
			Options{Checks: []string{Credentials}}, []hit{{"aws_access_key", Critical, "response_body"}}, awsKey},
		{"AWS secret near aws", Input{Bodies: []Request{body("GET", "https://api.shop.io/cfg", "", `{"aws_secret_access_key":"`+awsSecret+`"}`, 200, AuthPresent)}},
			Options{Checks: []string{Credentials}}, []hit{{"aws_secret_key", Critical, "response_body"}}, awsSecret},
		{"GitHub token in request", Input{Bodies: []Request{body("POST", "https://api.shop.io/deploy", `{"t":"`+ghToken+`"}`, "", 200, AuthPresent)}},
			Options{Checks: []string{Credentials}}, []hit{{"github_token", Critical, "request_body"}}, ghToken},
		{"Stripe key in console", Input{Logs: logs("init stripe " + stripe)},
			Options{Checks: []string{Credentials}}, []hit{{"stripe_key", Critical, "console"}}, stripe},
		{"private key in response", Input{Bodies: []Request{body("GET", "https://api.shop.io/k", "", "-----BEGIN RSA PRIVATE KEY-----\n"+strings.Repeat("MIIEpAIBAAKCAQEA75xq", 4)+"\n-----END RSA PRIVATE KEY-----", 200, AuthPresent)}},
			Options{Checks: []string{Credentials}}, []hit{{"private_key", Critical, "response_body"}}, "MIIEpAIBAAKCAQEA75xq"},
		{"JWT in request body", Input{Bodies: []Request{body("POST", "https://api.shop.io/orders", `{"session":"`+jwt+`"}`, "", 201, AuthPresent)}},
			Options{Checks: []string{Credentials}}, []hit{{"jwt_in_request_body", Warning, "request_body"}}, jwt},
		{"api key in JSON body", Input{Bodies: []Request{body("POST", "https://api.shop.io/geo", `{"apiKey": "`+apiKey+`"}`, "", 200, AuthPresent)}},
			Options{Checks: []string{Credentials}}, []hit{{"api_key_in_body", Warning, "request_body"}}, apiKey},
		{"secret in WebSocket URL and payload", Input{WS: []capture.WSEvent{
			{Event: "open", ID: "1", URL: "wss://rt.shop.io/feed?token=" + bearerTok},
			{Event: "message", ID: "1", Direction: "outgoing", Data: `{"apiKey":"` + apiKey + `"}`}}},
			Options{Checks: []string{Credentials}}, []hit{{"token_in_url", Critical, "url"}, {"api_key_in_body", Warning, "websocket"}}, bearerTok},

		// Auth patterns.
		{"PII without auth", Input{Bodies: []Request{body("GET", "https://api.shop.io/api/users/42", "", `{"id":42,"email":"jo@shop.io","phone":"+14155552671"}`, 200, AuthAbsent)}},
			Options{Checks: []string{AuthPatterns}}, []hit{{"pii_without_auth", Warning, "response_body"}}, ""},
		{"PII with auth is expected", Input{Bodies: []Request{body("GET", "https://api.shop.io/api/users/42", "", `{"email":"jo@shop.io"}`, 200, AuthPresent)}},
			Options{Checks: []string{AuthPatterns}}, nil, ""},
		{"public endpoint without PII", Input{Bodies: []Request{body("GET", "https://api.shop.io/api/products", "", `[{"id":1,"name":"Mug","price":9}]`, 200, AuthAbsent)}},
			Options{Checks: []string{AuthPatterns}}, nil, ""},
		{"unknown auth never counts as missing", Input{Bodies: []Request{body("GET", "https://api.shop.io/api/users/42", "", `{"email":"jo@shop.io"}`, 200, AuthUnknown)}},
			Options{Checks: []string{AuthPatterns}, SeverityMin: Info}, nil, ""},
		{"error responses are not user data", Input{Bodies: []Request{body("GET", "https://api.shop.io/api/users/42", "", `{"email":"jo@shop.io"}`, 404, AuthAbsent)}},
			Options{Checks: []string{AuthPatterns}}, nil, ""},

		// PII scanning.
		{"PII in authenticated response is info", Input{Bodies: []Request{body("GET", "https://api.shop.io/me", "", `{"user":{"profile":{"date_of_birth":"1990-01-02"}}}`, 200, AuthPresent)}},
			Options{Checks: []string{PIIExposure}, SeverityMin: Info}, []hit{{"pii_in_response", Info, "response_body"}}, ""},
		{"unauthenticated PII is a warning when auth_patterns is off", Input{Bodies: []Request{body("GET", "https://api.shop.io/u", "", `{"ssn":"123-45-6789"}`, 200, AuthAbsent)}},
			Options{Checks: []string{PIIExposure}}, []hit{{"pii_in_response", Warning, "response_body"}}, ""},
		{"password in response", Input{Bodies: []Request{body("GET", "https://api.shop.io/u/1", "", `{"name":"Jo","password":"hunter2hunter2"}`, 200, AuthPresent)}},
			Options{Checks: []string{PIIExposure}}, []hit{{"secret_in_response", Critical, "response_body"}}, "hunter2hunter2"},
		{"JWT in response outside auth endpoints", Input{Bodies: []Request{body("GET", "https://api.shop.io/items", "", `{"debug":"`+jwt+`"}`, 200, AuthPresent)}},
			Options{Checks: []string{PIIExposure}}, []hit{{"secret_in_response", Critical, "response_body"}}, jwt},
		{"JWT from a login endpoint is expected", Input{Bodies: []Request{body("POST", "https://api.shop.io/auth/login", "", `{"token":"`+jwt+`"}`, 200, AuthAbsent)}},
			Options{Checks: []string{PIIExposure, Credentials}}, nil, ""},
		{"JWT in console", Input{Logs: logs("Token: " + jwt)},
			Options{Checks: []string{PIIExposure}}, []hit{{"jwt_in_log", Critical, "console"}}, jwt},
		{"Bearer in console is one finding", Input{Logs: logs("headers", "Authorization: Bearer "+jwt)},
			Options{Checks: []string{PIIExposure}}, []hit{{"bearer_in_log", Critical, "console"}}, jwt},
		{"password in console", Input{Logs: logs(`login {"user":"jo","password":"s3cr3tPass"}`)},
			Options{Checks: []string{PIIExposure}}, []hit{{"password_in_log", Warning, "console"}}, "s3cr3tPass"},
		{"email in console is info", Input{Logs: logs("signed up jo.smith@shop.io")},
			Options{Checks: []string{PIIExposure}, SeverityMin: Info}, []hit{{"email_in_log", Info, "console"}}, "jo.smith@shop.io"},
		{"SSN in console", Input{Logs: logs("ssn 123-45-6789")},
			Options{Checks: []string{PIIExposure}}, []hit{{"pii_in_log", Warning, "console"}}, "123-45-6789"},
		{"card number in console", Input{Logs: logs("card 4111 1111 1111 1111")},
			Options{Checks: []string{PIIExposure}}, []hit{{"pii_in_log", Warning, "console"}}, "4111 1111 1111 1111"},
		{"phone in console", Input{Logs: logs("call (415) 555-2671")},
			Options{Checks: []string{PIIExposure}, SeverityMin: Info}, []hit{{"pii_in_log", Info, "console"}}, "(415) 555-2671"},
		{"card-like number failing Luhn", Input{Logs: logs("order 1234 5678 9012 3456")},
			Options{Checks: []string{PIIExposure}, SeverityMin: Info}, nil, ""},

		// Transport.
		{"HTTP API", Input{Network: []capture.NetworkEntry{{Method: "GET", URL: "http://api.shop.io/v1/items", Page: "http://shop.io/"}}},
			Options{Checks: []string{Transport}}, []hit{{"http_api", Warning, "url"}}, ""},
		{"mixed content script", Input{Network: []capture.NetworkEntry{{Method: "GET", URL: "http://cdn.shop.io/lib.js", Page: "https://shop.io/dash"}}},
			Options{Checks: []string{Transport}}, []hit{{"mixed_content_script", Critical, "url"}}, ""},
		{"mixed content image", Input{Bodies: []Request{{NetworkBody: capture.NetworkBody{Method: "GET", URL: "http://cdn.shop.io/logo", ContentType: "image/png", Page: "https://shop.io/"}}}},
			Options{Checks: []string{Transport}}, []hit{{"mixed_content", Warning, "url"}}, ""},
		{"insecure WebSocket", Input{WSConns: []capture.WSConnection{{ID: "1", URL: "ws://rt.shop.io/feed", Page: "http://shop.io/"}}},
			Options{Checks: []string{Transport}}, []hit{{"insecure_websocket", Warning, "url"}}, ""},

		// False-positive mitigation.
		{"Stripe test key", Input{Logs: logs("sk_test_51HqLmN8pQ2rS4tU6vW8xY0zA")}, all, nil, ""},
		{"test-marked key in URL", Input{Network: []capture.NetworkEntry{{Method: "GET", URL: "https://api.shop.io/x?api_key=demo_9f8e7d6c5b4a"}}}, all, nil, ""},
		{"placeholder key", Input{Network: []capture.NetworkEntry{{Method: "GET", URL: "https://api.shop.io/x?api_key=YOUR_API_KEY"}}}, all, nil, ""},
		{"masked password", Input{Logs: logs("password: ********")}, all, nil, ""},
		{"empty param", Input{Network: []capture.NetworkEntry{{Method: "GET", URL: "https://api.shop.io/x?token="}}}, all, nil, ""},
		{"sha1 near secret is no AWS key", Input{Logs: logs("secret rotated, commit 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12")}, all, nil, ""},
		{"localhost over HTTP", Input{Network: []capture.NetworkEntry{
			{Method: "GET", URL: "http://localhost:3000/api", Page: "https://localhost:3000/"},
			{Method: "GET", URL: "http://127.0.0.1:8080/x"}, {Method: "GET", URL: "http://[::1]/x"}},
			WSConns: []capture.WSConnection{{ID: "1", URL: "ws://localhost:5173/hmr"}}}, all, nil, ""},
		{"mock PII is info", Input{Bodies: []Request{body("GET", "https://api.shop.io/u", "", `{"email":"test@example.com"}`, 200, AuthAbsent)}},
			Options{Checks: []string{AuthPatterns}, SeverityMin: Info}, []hit{{"pii_without_auth", Info, "response_body"}}, ""},
		{"ip_address and classname are not PII", Input{Bodies: []Request{body("GET", "https://api.shop.io/s", "", `{"ip_address":"10.0.0.1","classname":"x"}`, 200, AuthAbsent)}},
			all, nil, ""},
		{"null and empty PII fields", Input{Bodies: []Request{body("GET", "https://api.shop.io/s", "", `{"email":null,"phone":""}`, 200, AuthAbsent)}},
			all, nil, ""},

		// Edge cases.
		{"empty buffers", Input{}, all, nil, ""},
		{"binary body", Input{Bodies: []Request{body("GET", "https://api.shop.io/f", "", "[Binary: 2048 bytes, type: image/png]", 200, AuthAbsent)}}, all, nil, ""},
		{"non-JSON body", Input{Bodies: []Request{body("GET", "https://api.shop.io/f", "", "<html>email me</html>", 200, AuthAbsent)}}, all, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.opt.Validate(); err != nil {
				t.Fatal(err)
			}
			r := Audit(c.in, c.opt)
			if got := hits(r); !slices.Equal(got, c.want) {
				t.Errorf("findings %v, want %v\n%+v", got, c.want, r.Findings)
			}
			out, _ := json.Marshal(r)
			if c.secret != "" && strings.Contains(string(out), c.secret) {
				t.Errorf("secret %q in output: %s", c.secret, out)
			}
			if strings.Contains(string(out), "null") {
				t.Errorf("null in output: %s", out)
			}
			for _, f := range r.Findings {
				if _, ok := r.Rules[f.Rule]; !ok {
					t.Errorf("rule %s not described", f.Rule)
				}
			}
		})
	}
}
