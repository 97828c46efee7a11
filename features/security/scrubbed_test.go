package security

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/redact"
)

// Every credential format redact knows is reported by a rule the audit
// describes: what is redacted and what is reported are one rule set.
func TestEveryFormatHasARule(t *testing.T) {
	for _, f := range redact.Formats {
		switch f.Rule {
		case "jwt", "bearer": // reported by where they were read
			continue
		}
		if _, ok := Rules[f.Rule]; !ok {
			t.Errorf("format %s: audit rule %q is not described", f.ID, f.Rule)
		}
	}
}

// The audit reads what capture stored, already redacted: each secret is
// still reported with its rule, and its evidence is the mark capture left
// ("[redacted]", never cut down to "[r...]").
func TestSecretsRedactedOnCaptureAreReported(t *testing.T) {
	alnum := "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	cases := []struct{ text, rule, evidence string }{
		{"signed in, token: " + jwt, "jwt_in_log", "eyJhbG…[redacted]"},
		{"stripe client ready with " + stripe, "stripe_key", "sk_live_[redacted]"},
		{"deploy using ghp_" + alnum[:36], "github_token", "ghp_[redacted]"},
		{"s3 upload failed for key " + awsKey, "aws_access_key", "AKIA[redacted]"},
		{`slack {"webhookToken":"xoxb-` + "1234567890-1234567890-" + alnum[10:34] + `"}`, "slack_token", "xoxb-[redacted]"},
		{"Error: upload failed Authorization: Bearer " + alnum[:40], "bearer_in_log", "Bearer [redacted]"},
		{`login {"user":"ann","password":"hunter2-not-real"}`, "password_in_log", "[redacted]"},
		{"<auth><token>" + alnum[:24] + "</token></auth>", "password_in_log", "[redacted]"},
		{"glpat-" + alnum[30:50] + " in CI", "gitlab_token", "glpat-[redacted]"},
	}
	for _, c := range cases {
		stored := redact.Message(c.text)
		if stored == c.text {
			t.Errorf("%q: not redacted", c.text)
			continue
		}
		r := Audit(Input{Logs: logs(stored)}, all)
		i := slices.IndexFunc(r.Findings, func(f Finding) bool { return f.Rule == c.rule })
		if i < 0 {
			t.Errorf("%q stored as %q: no %s in %+v", c.text, stored, c.rule, r.Findings)
			continue
		}
		if ev := r.Findings[i].Evidence; ev != c.evidence {
			t.Errorf("%q: evidence %q, want %q", c.text, ev, c.evidence)
		}
		out, _ := json.Marshal(r)
		if strings.Contains(string(out), "[r...") {
			t.Errorf("cut-down mark in %s", out)
		}
	}
}

// A password a response carried, redacted on capture, is still reported.
func TestRedactedPasswordInResponse(t *testing.T) {
	b := capture.NetworkBody{Method: "GET", URL: "https://api.shop.io/u/1", ContentType: "application/json", Status: 200,
		ResponseBody: redact.Body(`{"name":"Jo","password":"hunter2hunter2"}`, "application/json")}
	r := Audit(Input{Bodies: []Request{{NetworkBody: b, Auth: AuthPresent}}}, Options{Checks: []string{PIIExposure}})
	if got := hits(r); !slices.Equal(got, []hit{{"secret_in_response", Critical, "response_body"}}) || r.Findings[0].Evidence != redact.Redacted {
		t.Errorf("%+v", r.Findings)
	}
}

// A secret name's value the page sends in a body or a socket message is
// reported at info, redacted on capture or not.
func TestSecretSentInABody(t *testing.T) {
	xml := capture.NetworkBody{Method: "POST", URL: "https://api.shop.io/soap", ContentType: "text/plain",
		RequestBody: redact.Body("<auth><user>ann</user><token>Zk29xQpL77mNbV31rT</token></auth>", "application/xml")}
	in := Input{Bodies: []Request{{NetworkBody: xml}}, WS: []capture.WSEvent{
		{Event: "message", ID: "1", URL: "wss://rt.shop.io/s", Direction: "outgoing", Data: "password=Fake-pass-123"},
		{Event: "message", ID: "1", Direction: "incoming", Data: "echo:password=[redacted]"}}}
	r := Audit(in, Options{Checks: []string{Credentials}, SeverityMin: Info})
	// <auth> is a secret name too: what it holds (the user) is redacted, and reported, as in JSON.
	want := []hit{{"secret_in_body", Info, "request_body"}, {"secret_in_body", Info, "request_body"}, {"secret_in_body", Info, "websocket"}}
	if got := hits(r); !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v\n%+v", got, want, r.Findings)
	}
	if out, _ := json.Marshal(r); strings.Contains(string(out), "Fake-pass-123") || strings.Contains(string(out), "Zk29xQ") {
		t.Errorf("secret in %s", out)
	}
}
