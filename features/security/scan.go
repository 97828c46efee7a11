package security

import (
	"regexp"
	"slices"
	"strings"

	"github.com/gasoline-dev/gasoline/features/apicontract"
	"github.com/gasoline-dev/gasoline/features/capture"
)

// audit accumulates the findings of one run.
type audit struct {
	opt       Options
	on        map[string]bool
	findings  []Finding
	index     map[string]int
	endpoints map[string]bool
	scanned   Scanned
	piiKeys   map[string]bool
}

func newAudit(opt Options) *audit {
	a := &audit{opt: opt, on: map[string]bool{}, index: map[string]int{}, endpoints: map[string]bool{}, piiKeys: map[string]bool{}}
	checks := opt.Checks
	if len(checks) == 0 {
		checks = AllChecks
	}
	for _, c := range checks {
		a.on[c] = true
	}
	return a
}

func (a *audit) match(u string) bool {
	return a.opt.URLFilter == "" || strings.Contains(u, a.opt.URLFilter)
}

// where is the place a text was read from; findings in it copy it.
type where struct {
	in, method, url, page, level, source string
	status                               int
	n                                    int // occurrences this place stands for; 0 means 1
}

// add records a finding, or counts it again when the same rule already
// fired at the same place with the same evidence.
func (a *audit) add(w where, rule, sev, fieldName, evidence string) *Finding {
	r := Rules[rule]
	if !a.on[r.Category] {
		return nil
	}
	key := findingKey(w, rule, fieldName, evidence)
	n := max(1, w.n)
	if i, ok := a.index[key]; ok {
		f := &a.findings[i]
		f.Count += n
		if rank(sev) > rank(f.Severity) {
			f.Severity = sev
		}
		return f
	}
	a.index[key] = len(a.findings)
	a.findings = append(a.findings, Finding{
		Rule: rule, Severity: sev, Category: r.Category, In: w.in, Method: w.method,
		URL: w.url, Page: RedactURL(w.page), Status: w.status, Field: fieldName, Evidence: evidence,
		Level: w.level, Source: RedactURL(w.source), Note: envNote(w.url), Count: n,
	})
	return &a.findings[len(a.findings)-1]
}

// findingKey identifies a finding's place, for counting repeats.
func findingKey(w where, rule, fieldName, evidence string) string {
	return strings.Join([]string{rule, w.in, w.method, w.url, fieldName, evidence, w.source}, "\x00")
}

// budget caps the regex matches looked at in one text.
type budget int

func (b *budget) findAll(re *regexp.Regexp, s string) [][]int {
	if *b <= 0 {
		return nil
	}
	m := re.FindAllStringSubmatchIndex(s, int(*b))
	*b -= budget(len(m))
	return m
}

func clip(s string) string { return capture.Truncate(s, MaxScan) }

// scanSecrets looks for credential formats in a text. jwt adds JWTs, which
// are only unexpected in what the page sends.
func (a *audit) scanSecrets(w where, text string, b *budget, jwt bool) {
	if !a.on[Credentials] || text == "" {
		return
	}
	for _, p := range secretTokens {
		for _, m := range b.findAll(p.re, text) {
			v := text[m[2*p.group]:m[2*p.group+1]]
			if ignoredSecret(v) {
				continue
			}
			ev := Redact(v)
			if p.rule == "private_key" {
				ev = "BEGIN " + text[m[2]:m[3]] + " PRIVATE KEY"
			}
			a.add(w, p.rule, p.sev, "", ev)
		}
	}
	if jwt && !authEndpoint(w.url) {
		for _, m := range b.findAll(jwtPattern, text) {
			if v := text[m[0]:m[1]]; !ignoredSecret(v) {
				a.add(w, "jwt_in_request_body", Warning, "", Redact(v))
			}
		}
	}
	a.scanAWSSecret(w, text, b)
}

// scanAWSSecret finds 40-character secret keys near "aws" or "secret".
// Runs without upper case, lower case and digits mixed (hex digests,
// words) are not AWS secrets.
func (a *audit) scanAWSSecret(w where, text string, b *budget) {
	lower := strings.ToLower(text)
	if !strings.Contains(lower, "aws") && !strings.Contains(lower, "secret") {
		return
	}
	for _, m := range b.findAll(awsSecretRun, text) {
		s, e := m[2], m[3]
		v := text[s:e]
		near := lower[max(0, s-100):min(len(lower), e+100)]
		if !mixedCase(v) || (!strings.Contains(near, "aws") && !strings.Contains(near, "secret")) || ignoredSecret(v) {
			continue
		}
		a.add(w, "aws_secret_key", Critical, "", Redact(v))
	}
}

func mixedCase(v string) bool {
	var up, lo, dg bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		up = up || c >= 'A' && c <= 'Z'
		lo = lo || c >= 'a' && c <= 'z'
		dg = dg || c >= '0' && c <= '9'
	}
	return up && lo && dg
}

var authPath = regexp.MustCompile(`(?i)login|logout|sign-?in|sign-?up|register|token|auth|session|refresh|sso|callback`)

// authEndpoint reports URLs whose job is to hand out or take tokens, where a
// JWT in the payload is expected.
func authEndpoint(u string) bool { return authPath.MatchString(hostPath(u)) }

// scanURL checks one request URL for secrets in its parameters and
// credential formats anywhere in it.
func (a *audit) scanURL(w where, raw string) {
	if !a.on[Credentials] {
		return
	}
	b := budget(MaxMatches)
	seen := map[string]bool{}
	for _, p := range []struct {
		rule string
		re   *regexp.Regexp
	}{{"token_in_url", urlBearerParam}, {"secret_in_url", urlSecretParam}, {"secret_param_in_url", urlGenericParam}} {
		for _, m := range b.findAll(p.re, raw) {
			name, v := raw[m[2]:m[3]], raw[m[4]:m[5]]
			if v == "" || seen[strings.ToLower(name)] || ignoredSecret(v) {
				continue
			}
			seen[strings.ToLower(name)] = true
			// The redacted URL already shows the value.
			a.add(w, p.rule, Critical, name, "")
		}
	}
	for _, p := range []tokenPattern{awsAccessKey, githubToken, stripeKey} {
		for _, m := range b.findAll(p.re, raw) {
			if v := raw[m[0]:m[1]]; !ignoredSecret(v) {
				a.add(w, p.rule, p.sev, "", "")
			}
		}
	}
}

// scanRequests runs the URL checks once per distinct request, from the
// waterfall and from the bodies.
func (a *audit) scanRequests(in Input) {
	type req struct {
		method, url, page, resource string
		n                           int
	}
	var reqs []req
	seen := map[string]int{}
	put := func(r req) {
		k := r.method + " " + r.url
		if i, ok := seen[k]; ok {
			reqs[i].n += r.n
			if reqs[i].page == "" {
				reqs[i].page = r.page
			}
			if reqs[i].resource == "" || reqs[i].resource == "other" {
				reqs[i].resource = r.resource
			}
			return
		}
		seen[k] = len(reqs)
		reqs = append(reqs, r)
	}
	for _, e := range in.Network {
		if a.match(e.URL) {
			a.scanned.NetworkRequests++
			put(req{e.Method, e.URL, e.Page, resourceType("", e.URL), 1})
		}
	}
	for _, r := range in.Bodies {
		if a.match(r.URL) {
			put(req{r.Method, r.URL, r.Page, resourceType(r.ContentType, r.URL), 0})
		}
	}
	for _, r := range reqs {
		a.endpoints[apicontract.Endpoint(r.method, r.url)] = true
		w := where{in: "url", method: r.method, url: RedactURL(r.url), n: r.n}
		a.scanURL(w, r.url)
		a.checkTransport(w, r.url, r.page, r.resource)
	}
}

// resourceType classifies a request for mixed content, which is critical
// only for scripts.
func resourceType(contentType, u string) string {
	ct := strings.ToLower(contentType)
	p := strings.ToLower(hostPath(u))
	ext := p[strings.LastIndexByte(p, '.')+1:]
	switch {
	case strings.Contains(ct, "javascript") || strings.Contains(ct, "ecmascript") || ext == "js" || ext == "mjs":
		return "script"
	case strings.Contains(ct, "css") || ext == "css":
		return "style"
	case strings.HasPrefix(ct, "image/") || slices.Contains([]string{"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "avif"}, ext):
		return "image"
	case strings.HasPrefix(ct, "font/") || slices.Contains([]string{"woff", "woff2", "ttf", "otf"}, ext):
		return "font"
	}
	return "other"
}

// checkTransport flags plain HTTP to anything but this machine, as mixed
// content when the page that made the request was served over HTTPS.
func (a *audit) checkTransport(w where, u, page, resource string) {
	if !a.on[Transport] || scheme(u) != "http" || IsLocalhost(u) {
		return
	}
	if scheme(page) == "https" {
		w.page = page
		rule, sev := "mixed_content", Warning
		if resource == "script" {
			rule, sev = "mixed_content_script", Critical
		}
		if f := a.add(w, rule, sev, "", ""); f != nil {
			f.Resource = resource
		}
		return
	}
	a.add(w, "http_api", Warning, "", "")
}
