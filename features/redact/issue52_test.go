package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// Card numbers are redacted whole wherever they are written, and a JSON
// body stays valid; numbers that only look like cards are kept.
func TestCardNumbers(t *testing.T) {
	for _, c := range []struct{ in, ct, want string }{
		{"card=4539148803436467&exp=12%2F30", "application/x-www-form-urlencoded", "card=[redacted]&exp=12%2F30"},
		{`{"card":4539148803436467,"n":2}`, "application/json", `{"card":"[redacted]","n":2}`},
		{`{"cards":[4539148803436467, 5555555555554444]}`, "application/json", `{"cards":["[redacted]", "[redacted]"]}`},
		{`{"cards":[4539148803436467,5555555555554444]}`, "application/json", `{"cards":["[redacted]","[redacted]"]}`},
		{`{"pan":"4111 1111 1111 1111"}`, "application/json", `{"pan":"[redacted]"}`},
		{"paid with 3782-822463-10005 today", "text/plain", "paid with [redacted] today"},
		{"cc=6011111111111117", "", "cc=[redacted]"},
		{"<card><number>4111111111111111</number></card>", "application/xml", "<card><number>[redacted]</number></card>"},
	} {
		got := Body(c.in, c.ct)
		if got != c.want {
			t.Errorf("Body(%q, %q) = %q, want %q", c.in, c.ct, got, c.want)
		}
		if strings.HasPrefix(c.ct, "application/json") && !json.Valid([]byte(got)) {
			t.Errorf("not JSON any more: %s", got)
		}
	}
	for _, s := range []string{
		"charging 4539 1488 0343 6467 now", "typed 4539148803436467", "https://shop.test/pay?card=4539148803436467",
	} {
		var got string
		if strings.HasPrefix(s, "https:") {
			got = Credentials(s)
		} else {
			got = Message(s)
		}
		if strings.Contains(got, "6467") || !strings.Contains(got, Redacted) {
			t.Errorf("%q → %q", s, got)
		}
	}
	// Not cards: a failing check digit, a timestamp, too long, inside a
	// longer word or number, a decimal, mixed separators, wrong length for
	// its network (a 17-digit "Visa").
	for _, s := range []string{
		"4539148803436468", "1733486400123", "45391488034364670", "id4539148803436467", "0.4539148803436467",
		"4539 1488-0343 6467", "40382499882895467", "45 39148803436467", "v1.4539148803436467",
		"1234567890123456789" + "4539148803436467", "45391488034364670000" + "5555555555554444",
	} {
		if got := Message(s); got != s {
			t.Errorf("Message(%q) = %q", s, got)
		}
	}
}

// XML and HTML bodies: elements and attributes with a secret name, and
// everything inside such an element.
func TestXMLAndHTMLBodies(t *testing.T) {
	for _, ct := range []string{"application/xml", "text/xml", "text/html", "application/soap+xml", ""} {
		for in, want := range map[string]string{
			"<login><token>abc123XYZsecretvalue</token></login>":                                "<login><token>[redacted]</token></login>",
			`<login user="ann" password="hunter2x"/>`:                                           `<login user="ann" password="[redacted]"/>`,
			"<login><password>\n  <value>hunter2x</value>\n</password><user>ann</user></login>": "<login><password>\n  <value>[redacted]</value>\n</password><user>ann</user></login>",
			`<a:Session id="1"><a:Key>k9Fq2xZ8</a:Key></a:Session>`:                             `<a:Session id="1"><a:Key>[redacted]</a:Key></a:Session>`,
		} {
			if got := Body(in, ct); got != want {
				t.Errorf("Body(%q, %q) = %q, want %q", in, ct, got, want)
			}
		}
	}
}

// A named value holding a credential of a known format gets the mark free
// text gives it, wherever it is written; a mark is never redacted again.
func TestNamedCredentialKeepsItsMark(t *testing.T) {
	key := "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
	for _, c := range []struct{ got, want string }{
		{URL("https://api.test/v1?api_key=" + key + "&x=1"), "https://api.test/v1?api_key=sk_live_[redacted]&x=1"},
		{Pairs("api_key=" + key), "api_key=sk_live_[redacted]"},
		{Body("api_key="+key, "application/x-www-form-urlencoded"), "api_key=sk_live_[redacted]"},
		{Body(`{"api_key":"`+key+`"}`, "application/json"), `{"api_key":"sk_live_[redacted]"}`},
		{Message("api_key=" + key), "api_key=sk_live_[redacted]"},
		{Body("<apiKey>"+key+"</apiKey>", "application/xml"), "<apiKey>sk_live_[redacted]</apiKey>"},
		{Pairs("api_key=sk_live_[redacted]"), "api_key=sk_live_[redacted]"},
		{Pairs("password=hunter2"), "password=[redacted]"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// GraphQL: the document stays readable (its variable declarations and
// arguments are types and variables, not values); what variables hold is
// scrubbed by name and format; a literal argument of a secret name is not
// kept.
func TestGraphQLBodies(t *testing.T) {
	in := `{"operationName":"Login","query":"mutation Login($password: String!, $email: String!) {\n  login(password: $password, email: $email) { token user { id } }\n}","variables":{"email":"ann@example.test","password":"hunter2x","card":"4111111111111111","key":"sk_live_4eC39HqLyjWDarjtT1zdp7dc"}}`
	got := Body(in, "application/json")
	want := `{"operationName":"Login","query":"mutation Login($password: String!, $email: String!) {\n  login(password: $password, email: $email) { token user { id } }\n}","variables":{"email":"ann@example.test","password":"[redacted]","card":"[redacted]","key":"sk_live_[redacted]"}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	lit := `{"query":"mutation { login(password: \"hunter2x\", user: \"ann\") { token } }"}`
	if got := Body(lit, "application/json"); got != `{"query":"mutation { login(password: \"[redacted]\", user: \"ann\") { token } }"}` {
		t.Errorf("literal: %s", got)
	}
	// A search "query" is not GraphQL: its pairs are scrubbed as before.
	if got := Body(`{"query":"token=abc123x"}`, "application/json"); got != `{"query":"token=[redacted]"}` {
		t.Errorf("search query: %s", got)
	}
}
