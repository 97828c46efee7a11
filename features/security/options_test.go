package security

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

func TestRedactShowsFirstSixAndLastThree(t *testing.T) {
	for in, want := range map[string]string{
		stripe:       "sk_liv...0zA",
		apiKey:       "Zk29xQ...1rT",
		"abcdefghij": "ab...j", // short: at most a quarter and an eighth
		"abc":        "***",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactURLMasksSecretsButKeepsTheRest(t *testing.T) {
	got := RedactURL("https://u:pw@api.shop.io/v1/x?page=2&api_key=" + apiKey + "#access_token=" + bearerTok)
	for _, leak := range []string{apiKey, bearerTok, ":pw@"} {
		if strings.Contains(got, leak) {
			t.Errorf("%q leaks %q", got, leak)
		}
	}
	if !strings.Contains(got, "page=2") || !strings.Contains(got, "api_key=Zk29xQ...1rT") {
		t.Errorf("redacted URL lost its shape: %q", got)
	}
}

func sample() Input {
	return Input{
		Network: []capture.NetworkEntry{
			{Method: "GET", URL: "https://api.shop.io/api/data?api_key=" + apiKey, Page: "https://shop.io/"},
			{Method: "GET", URL: "https://api.shop.io/api/data?api_key=" + apiKey, Page: "https://shop.io/"},
			{Method: "GET", URL: "http://cdn.other.io/lib.js", Page: "https://shop.io/"},
		},
		Bodies: []Request{
			body("GET", "https://api.shop.io/api/users/1", "", `{"email":"a@shop.io"}`, 200, AuthAbsent),
			body("GET", "https://api.shop.io/api/users/2", "", `{"email":"b@shop.io","address":{"city":"X"}}`, 200, AuthAbsent),
		},
		Logs: logs("signed in as a@shop.io"),
	}
}

func TestRepeatsAreCountedAndTheOriginStatedOnce(t *testing.T) {
	r := Audit(sample(), Options{})
	if r.Origin != "https://api.shop.io" {
		t.Errorf("origin %q", r.Origin)
	}
	byRule := map[string]Finding{}
	for _, f := range r.Findings {
		byRule[f.Rule] = f
	}
	if f := byRule["secret_in_url"]; f.Count != 2 || f.URL != "/api/data?api_key=Zk29xQ...1rT" || f.Field != "api_key" || f.Evidence != "" {
		t.Errorf("secret_in_url: %+v", f)
	}
	f := byRule["pii_without_auth"]
	if f.Count != 2 || f.URL != "/api/users/:id" || !f.NeverAuthenticated || strings.Join(f.PII, ",") != "email,address" {
		t.Errorf("pii_without_auth: %+v", f)
	}
	if f := byRule["mixed_content_script"]; f.URL != "http://cdn.other.io/lib.js" || f.Page != "https://shop.io/" || f.Resource != "script" {
		t.Errorf("mixed content: %+v", f)
	}
	if r.Summary.BelowMin != 1 { // the email in the console is info
		t.Errorf("below_severity_min %d", r.Summary.BelowMin)
	}
	if strings.Join(r.Summary.Checks, ",") != "credentials,auth_patterns,pii_exposure,transport" {
		t.Errorf("checks %v", r.Summary.Checks)
	}
	if s := r.Summary.Scanned; s.NetworkRequests != 3 || s.Bodies != 2 || s.ConsoleEntries != 1 || s.UniqueEndpoints != 3 {
		t.Errorf("scanned %+v", s)
	}
}

func TestAuthenticatedOnceIsNotNeverAuthenticated(t *testing.T) {
	in := Input{Bodies: []Request{
		body("GET", "https://api.shop.io/api/users/1", "", `{"email":"a@shop.io"}`, 200, AuthPresent),
		body("GET", "https://api.shop.io/api/users/2", "", `{"email":"b@shop.io"}`, 200, AuthAbsent),
	}}
	r := Audit(in, Options{Checks: []string{AuthPatterns}})
	if len(r.Findings) != 1 || r.Findings[0].NeverAuthenticated {
		t.Errorf("%+v", r.Findings)
	}
}

func TestURLFilterScansOnlyMatchingTraffic(t *testing.T) {
	r := Audit(sample(), Options{URLFilter: "/api/users", SeverityMin: Info})
	for _, f := range r.Findings {
		if f.Rule != "pii_without_auth" {
			t.Errorf("outside the filter: %+v", f)
		}
	}
	if len(r.Findings) != 1 || r.Summary.Scanned.ConsoleEntries != 0 || r.Summary.Scanned.NetworkRequests != 0 {
		t.Errorf("%+v", r)
	}
}

func TestSeverityMinHidesLowerFindings(t *testing.T) {
	for sev, want := range map[string]int{Info: 4, Warning: 3, Critical: 2} {
		r := Audit(sample(), Options{SeverityMin: sev})
		if r.Summary.Total != want || len(r.Findings) != want {
			t.Errorf("severity_min %s: %d findings, want %d: %v", sev, r.Summary.Total, want, hits(r))
		}
		for _, f := range r.Findings {
			if rank(f.Severity) < rank(sev) {
				t.Errorf("severity_min %s kept %+v", sev, f)
			}
		}
	}
}

func TestValidateRejectsUnknownChecksAndSeverities(t *testing.T) {
	if err := (Options{Checks: []string{"xss"}}).Validate(); err == nil || !strings.Contains(err.Error(), "checks") {
		t.Errorf("checks: %v", err)
	}
	if err := (Options{SeverityMin: "high"}).Validate(); err == nil || !strings.Contains(err.Error(), "severity_min") {
		t.Errorf("severity_min: %v", err)
	}
}

func TestAtMostTwentyFindingsPerCategory(t *testing.T) {
	var in Input
	for i := range 30 {
		in.Network = append(in.Network, capture.NetworkEntry{Method: "GET", URL: fmt.Sprintf("https://api.shop.io/r%d?api_key=%s%d", i, apiKey, i)})
	}
	r := Audit(in, Options{})
	if len(r.Findings) != MaxPerCategory || r.Summary.Omitted[Credentials] != 10 {
		t.Errorf("%d findings, omitted %v", len(r.Findings), r.Summary.Omitted)
	}
}

func TestAtMostHundredMatchesPerText(t *testing.T) {
	var sb strings.Builder
	const base32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	for i := range 150 {
		fmt.Fprintf(&sb, "AKIA%s%c%c ", "QWERTYUIOPASDF", base32[i/32], base32[i%32])
	}
	a := newAudit(Options{SeverityMin: Info})
	b := budget(MaxMatches)
	a.scanSecrets(where{in: "console"}, sb.String(), &b, false)
	// The keys' evidence is the same (AKIA[redacted]): one finding, counted.
	if len(a.findings) != 1 || a.findings[0].Count != MaxMatches {
		t.Errorf("findings from one text: %+v, want one counting %d", a.findings, MaxMatches)
	}
}

func TestOnlyTheFirst50KBOfAResponseIsScanned(t *testing.T) {
	pad := strings.Repeat(" ", MaxScan)
	early := body("GET", "https://api.shop.io/a", "", `{"k":"`+awsKey+`"}`+pad, 200, AuthPresent)
	late := body("GET", "https://api.shop.io/b", "", pad+`{"k":"`+awsKey+`"}`, 200, AuthPresent)
	if r := Audit(Input{Bodies: []Request{early, late}}, Options{}); len(r.Findings) != 1 || r.Findings[0].URL != "/a" {
		t.Errorf("%+v", r.Findings)
	}
}

func TestPIIIsFoundDownToDepthFive(t *testing.T) {
	nest := func(depth int) string {
		s := `{"email":"a@shop.io"}`
		for range depth - 1 {
			s = `{"n":` + s + `}`
		}
		return s
	}
	for depth, want := range map[int]int{1: 1, 5: 1, 6: 0} {
		r := Audit(Input{Bodies: []Request{body("GET", "https://api.shop.io/u", "", nest(depth), 200, AuthAbsent)}}, Options{})
		if len(r.Findings) != want {
			t.Errorf("email at depth %d: %d findings, want %d", depth, len(r.Findings), want)
		}
	}
}

func TestStagingURLsGetANote(t *testing.T) {
	r := Audit(Input{Network: []capture.NetworkEntry{{Method: "GET", URL: "https://staging.shop.io/x?api_key=" + apiKey}}}, Options{})
	if len(r.Findings) != 1 || !strings.Contains(r.Findings[0].Note, "staging") {
		t.Errorf("%+v", r.Findings)
	}
	r = Audit(Input{Network: []capture.NetworkEntry{{Method: "GET", URL: "https://shop.io/devices?api_key=" + apiKey}}}, Options{})
	if r.Findings[0].Note != "" {
		t.Errorf("/devices is not a dev environment: %+v", r.Findings[0])
	}
}

func TestVeryLargeAndDeepBodiesDoNotBreakTheWalk(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	huge := `{"items":[` + strings.Repeat(`{"email":"a@shop.io"},`, 5000) + `{}]}`
	r := Audit(Input{Bodies: []Request{
		body("GET", "https://api.shop.io/deep", "", deep, 200, AuthAbsent),
		body("GET", "https://api.shop.io/huge", "", huge, 200, AuthAbsent),
	}}, Options{})
	if len(r.Findings) != 1 || r.Findings[0].URL != "/huge" {
		t.Errorf("%+v", r.Findings)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
}

// The hand-written email scan must agree with the spec's regex, which it
// replaces for speed.
func TestEmailScanAgreesWithTheSpecRegex(t *testing.T) {
	for _, s := range []string{
		"jo@shop.io", "mail jo.smith+tag@mail.shop.co.uk, then", "a@b.c", "x@y.z1", "no at sign", "@shop.io", "jo@", "jo@.io",
		"jo@shop.io.", "a@b..cd", "user%1@host-1.example.org;", "one@a.io two@b.io", "q@w.e.rt9", "é@x.io", "a@b.cd.e",
	} {
		var got [][2]int
		b := budget(MaxMatches)
		emails(s, &b, func(start, end int) { got = append(got, [2]int{start, end}) })
		var want [][2]int
		for _, m := range emailPattern().FindAllStringIndex(s, -1) {
			want = append(want, [2]int{m[0], m[1]})
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: scan %v, regex %v", s, got, want)
		}
	}
}

func TestLineSummarisesTheReport(t *testing.T) {
	got := Audit(sample(), Options{}).Line()
	if got != "3 findings (2 critical, 1 warning, 0 info) in 3 requests, 2 bodies, 1 console entries" {
		t.Errorf("%q", got)
	}
}

func TestTokensInBodyEndpointPathsAreRedacted(t *testing.T) {
	in := Input{Bodies: []Request{body("GET", "https://api.shop.io/reset/"+jwt, "", `{"k":"`+awsKey+`"}`, 200, AuthPresent)}}
	r := Audit(in, Options{})
	out, _ := json.Marshal(r)
	if len(r.Findings) != 1 || strings.Contains(string(out), jwt) || strings.Contains(string(out), awsKey) {
		t.Errorf("%s", out)
	}
}

func TestUnauthenticatedEndpointWithASecretInItsPath(t *testing.T) {
	in := Input{Bodies: []Request{body("GET", "https://api.shop.io/keys/"+stripe, "", `{"email":"a@shop.io"}`, 200, AuthAbsent)}}
	r := Audit(in, Options{})
	out, _ := json.Marshal(r)
	if got := hits(r); len(got) != 2 || got[0].rule != "stripe_key" || !r.Findings[1].NeverAuthenticated || strings.Contains(string(out), stripe) {
		t.Errorf("%s", out)
	}
}
