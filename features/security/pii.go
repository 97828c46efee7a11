package security

import (
	"strings"

	"github.com/gasoline-dev/gasoline/features/apicontract"
	"github.com/gasoline-dev/gasoline/features/redact"
)

// piiKey reports JSON keys that name personal data: email, phone, ssn,
// social_security, credit_card, address, date_of_birth, dob, and a
// password by redact's rule.
// Keys are split into words (snake, kebab and camel case) so that
// "classname" is not an ssn nor "ip_address" a postal address.
func piiKey(key string) bool {
	if passwordKey(key) {
		return true
	}
	w := redact.Words(key)
	for i, x := range w {
		switch {
		case strings.HasPrefix(x, "email"), strings.HasPrefix(x, "phone"),
			x == "ssn", x == "dob", x == "birthdate", x == "mobile":
			return true
		case x == "address" || x == "addresses":
			if i == 0 || !strings.Contains(" ip ipv4 ipv6 mac wallet contract server remote local hw ether bitcoin btc eth host ", " "+w[i-1]+" ") {
				return true
			}
		case x == "social" && i+1 < len(w) && w[i+1] == "security",
			x == "credit" && i+1 < len(w) && w[i+1] == "card",
			x == "date" && i+2 < len(w) && w[i+1] == "of" && w[i+2] == "birth":
			return true
		}
	}
	return false
}

// passwordKey reports keys that name a password, by redact's rule.
func passwordKey(key string) bool {
	w := redact.SecretWord(key)
	return strings.HasPrefix(w, "pass") || w == "pwd"
}

func (a *audit) isPIIKey(k string) bool {
	v, ok := a.piiKeys[k]
	if !ok {
		v = piiKey(k)
		a.piiKeys[k] = v
	}
	return v
}

// bodyPII is what a response body reveals.
type bodyPII struct {
	fields     []string
	real, mock bool
}

const maxPIIFields = 10

func (p *bodyPII) addField(k string, mock bool) {
	if mock {
		p.mock = true
	} else {
		p.real = true
	}
	if len(p.fields) < maxPIIFields && !containsStr(p.fields, k) {
		p.fields = append(p.fields, k)
	}
}

func containsStr(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// valuePII names the kind of personal data a string value holds, if any.
// Digit-heavy checks run only on strings with enough digits.
func valuePII(v string, b *budget) string {
	if strings.IndexByte(v, '@') >= 0 && emails(v, b, nil) > 0 {
		return "email"
	}
	windows, _ := numberRuns(v)
	for _, win := range windows {
		if len(b.findAll(ssnPattern(), win)) > 0 {
			return "ssn"
		}
		for _, m := range b.findAll(cardPattern(), win) {
			if luhn(win[m[0]:m[1]]) {
				return "credit_card"
			}
		}
		if len(b.findAll(phonePattern(), win)) > 0 {
			return "phone"
		}
	}
	return ""
}

// luhn keeps card-number findings to numbers that pass the card checksum.
func luhn(s string) bool {
	sum, n := 0, 0
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c < '0' || c > '9' {
			continue
		}
		d := int(c - '0')
		if n%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		n++
	}
	return n >= 13 && sum%10 == 0
}

// scanBodies reads request and response payloads: credentials in both,
// personal data and secrets in responses, and which endpoints serve
// personal data to unauthenticated calls.
func (a *audit) scanBodies(reqs []Request) {
	type authSeen struct{ present bool }
	endpoints := map[string]*authSeen{}
	type unauth struct {
		finding  int
		endpoint string
	}
	var unauths []unauth
	for _, r := range reqs {
		if !a.match(r.URL) {
			continue
		}
		a.scanned.Bodies++
		// Body findings are per endpoint (no query, ids as :id), so twenty
		// user ids make one finding.
		origin, path := apicontract.Split(r.URL)
		ep := apicontract.Endpoint(r.Method, r.URL)
		a.endpoints[ep] = true
		u := redactTokens(origin + path)
		if r.RequestBody != "" {
			b := budget(MaxMatches)
			a.scanSecrets(where{in: "request_body", method: r.Method, url: u}, clip(r.RequestBody), &b, true)
		}
		if r.ResponseBody == "" {
			continue
		}
		resp := clip(r.ResponseBody)
		b := budget(MaxMatches)
		w := where{in: "response_body", method: r.Method, url: u}
		a.scanSecrets(w, resp, &b, false)
		if !a.enabled(PIIExposure) && !a.enabled(AuthPatterns) {
			continue
		}
		w.status = r.Status
		p := a.walkResponse(w, r.URL, resp, &b)
		seen := endpoints[ep]
		if seen == nil {
			seen = &authSeen{}
			endpoints[ep] = seen
		}
		seen.present = seen.present || r.Auth == AuthPresent
		if len(p.fields) == 0 || r.Status < 200 || r.Status > 299 {
			continue
		}
		sev := Info
		rule := "pii_in_response"
		if r.Auth == AuthAbsent {
			sev = Warning
			if a.enabled(AuthPatterns) {
				rule = "pii_without_auth"
			}
		}
		if p.mock && !p.real {
			sev = Info
		}
		f := a.add(w, rule, sev, "", "")
		if f == nil {
			continue
		}
		f.Status = r.Status
		f.Auth = r.Auth.String()
		for _, k := range p.fields {
			if len(f.PII) < maxPIIFields && !containsStr(f.PII, k) {
				f.PII = append(f.PII, k)
			}
		}
		if rule == "pii_without_auth" && f.Count == 1 {
			unauths = append(unauths, unauth{a.index[findingKey(w, rule, "", "")], ep})
		}
	}
	for _, u := range unauths {
		f := &a.findings[u.finding]
		f.NeverAuthenticated = !endpoints[u.endpoint].present
		f.Auth = ""
	}
}

// walkResponse collects personal-data fields of a JSON response and flags
// passwords and tokens in it.
func (a *audit) walkResponse(w where, rawURL, body string, b *budget) bodyPII {
	var p bodyPII
	walkJSON(body, PIIDepth, func(f field) {
		empty := f.kind == 'n' || f.kind == 'f' || (f.kind == '"' && f.val == "")
		// Once a field is known to hold real data, its other values add
		// nothing: a list of users is judged by its first few.
		if empty || (p.real && containsStr(p.fields, f.key)) {
			return
		}
		if a.isPIIKey(f.key) {
			p.addField(f.key, f.kind == '"' && !p.real && isMock(f.val))
			if f.kind == '"' && passwordKey(f.key) {
				if f.val == redact.Redacted { // scrubbed on capture
					a.add(w, "secret_in_response", Critical, f.key, f.val)
				} else if !ignoredSecret(f.val) {
					a.add(w, "secret_in_response", Critical, f.key, Redact(f.val))
				}
			}
			return
		}
		if f.kind != '"' {
			return
		}
		if strings.Contains(f.val, "eyJ") && !authEndpoint(rawURL) && a.jwtInResponse(w, f) {
			return
		}
		if kind := valuePII(f.val, b); kind != "" {
			k := f.key
			if k == "" {
				k = kind
			}
			p.addField(k, !p.real && isMock(f.val))
		}
	})
	return p
}

// jwtInResponse reports a JWT in a response's string value, as captured or
// as Gasoline redacted it.
func (a *audit) jwtInResponse(w where, f field) bool {
	found := false
	redact.Scan(f.val, func(m redact.Match) {
		if ev := evidence(f.val, m); m.Rule == "jwt" && ev != "" && !found {
			found = true
			a.add(w, "secret_in_response", Critical, f.key, ev)
		}
	})
	return found
}
