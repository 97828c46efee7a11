package security

import (
	"regexp"
	"slices"
	"strings"

	"github.com/gasoline-dev/gasoline/features/apicontract"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/redact"
)

// audit accumulates the findings of one run.
type audit struct {
	opt       Options
	on        [4]bool // by index in AllChecks
	findings  []Finding
	index     map[string]int
	endpoints map[string]bool
	scanned   Scanned
	piiKeys   map[string]bool
	redacted  map[string]string // RedactURL results: console pages and sources repeat
}

func (a *audit) redactURL(u string) string {
	r, ok := a.redacted[u]
	if !ok {
		r = RedactURL(u)
		a.redacted[u] = r
	}
	return r
}

func newAudit(opt Options) *audit {
	a := &audit{opt: opt, index: map[string]int{}, endpoints: map[string]bool{}, piiKeys: map[string]bool{}, redacted: map[string]string{}}
	checks := opt.Checks
	if len(checks) == 0 {
		checks = AllChecks
	}
	for _, c := range checks {
		if i := slices.Index(AllChecks, c); i >= 0 {
			a.on[i] = true
		}
	}
	return a
}

func (a *audit) enabled(category string) bool {
	switch category {
	case Credentials:
		return a.on[0]
	case AuthPatterns:
		return a.on[1]
	case PIIExposure:
		return a.on[2]
	case Transport:
		return a.on[3]
	}
	return false
}

func (a *audit) match(u string) bool {
	return a.opt.URLFilter == "" || strings.Contains(u, a.opt.URLFilter)
}

// where is the place a text was read from; findings in it copy it. Its
// URLs are already redacted.
type where struct {
	in, method, url, page, level, source string
	status                               int
	n                                    int // occurrences this place stands for; 0 means 1
}

// add records a finding, or counts it again when the same rule already
// fired at the same place with the same evidence.
func (a *audit) add(w where, rule, sev, fieldName, evidence string) *Finding {
	r := Rules[rule]
	if !a.enabled(r.Category) {
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
		URL: w.url, Page: w.page, Status: w.status, Field: fieldName, Evidence: evidence,
		Level: w.level, Source: w.source, Count: n,
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

// scanSecrets reports the secrets redact finds in a text, by where the
// text was read: a credential of a known format anywhere; in console text a
// JWT, a Bearer credential or a secret name's value (pii_exposure); in what
// the page sends (outgoing) a JWT outside the auth endpoints and a secret
// name's value; in any body a secret name for a key. It returns the spans
// it reported.
func (a *audit) scanSecrets(w where, text string, b *budget, outgoing bool) (taken [][2]int) {
	console := w.in == "console"
	if text == "" || !a.enabled(Credentials) && !(console && a.enabled(PIIExposure)) {
		return nil
	}
	redact.Scan(text, func(m redact.Match) {
		if *b <= 0 {
			return
		}
		ev := evidence(text, m)
		if ev == "" {
			return
		}
		rule, sev, name := m.Rule, Critical, ""
		switch m.Rule {
		case "jwt":
			switch {
			case console:
				rule = "jwt_in_log"
			case outgoing && !authEndpoint(w.url):
				rule, sev = "jwt_in_request_body", Warning
			default:
				return
			}
		case "bearer":
			if !console {
				return
			}
			rule = "bearer_in_log"
		case "credit_card":
			if console {
				return // personal data in a log: scanLogPII's pii_in_log
			}
			sev = Warning
		case redact.SecretName:
			switch {
			case console:
				rule, sev, name = "password_in_log", Warning, m.ID
			case strings.HasSuffix(redact.SecretWord(m.ID), "key"):
				rule, sev = "api_key_in_body", Warning
			case outgoing:
				rule, sev, name = "secret_in_body", Info, m.ID
			default:
				return
			}
		}
		*b--
		taken = append(taken, [2]int{m.Start, m.End})
		a.add(w, rule, sev, name, ev)
	})
	return taken
}

// evidence is what a finding shows of a secret: the mark of one Gasoline
// redacted on capture ("ghp_[redacted]", "[redacted]"), a format's public
// prefix, or a secret name's value cut down; "" for a value the
// false-positive rules keep out (test keys, placeholders).
func evidence(text string, m redact.Match) string {
	v := m.Value(text)
	if m.Scrubbed {
		if isTestValue(strings.TrimSuffix(v, redact.Redacted)) {
			return ""
		}
		return v
	}
	if ignoredSecret(v) {
		return ""
	}
	if m.Rule == redact.SecretName {
		return Redact(v)
	}
	return m.Redacted(text)
}

var authPath = lazyRegexp(`(?i)login|logout|sign-?in|sign-?up|register|token|auth|session|refresh|sso|callback`)

// authEndpoint reports URLs whose job is to hand out or take tokens, where a
// JWT in the payload is expected.
func authEndpoint(u string) bool { return authPath().MatchString(hostPath(u)) }

// scanURL checks one request URL for secrets in its parameters and
// credential formats anywhere in it.
func (a *audit) scanURL(w where, raw string) {
	if !a.enabled(Credentials) {
		return
	}
	b := budget(MaxMatches)
	if secretParam(raw) {
		a.scanParams(w, raw, &b)
	}
	redact.Scan(raw, func(m redact.Match) {
		switch m.Rule {
		case "jwt", "bearer", redact.SecretName: // the parameter checks report these
		default:
			if b > 0 && evidence(raw, m) != "" {
				b--
				a.add(w, m.Rule, Critical, paramAt(raw, m.Start), "") // the redacted URL shows where
			}
		}
	})
}

// paramAt is the name of the query or fragment parameter whose value holds
// offset i of a URL, or "".
func paramAt(raw string, i int) string {
	start := strings.LastIndexAny(raw[:i], "?&#;") + 1
	if start == 0 {
		return ""
	}
	name, _, ok := strings.Cut(raw[start:i], "=")
	if !ok {
		return ""
	}
	return name
}

// secretParam reports a query or fragment with a parameter whose name is
// a secret's, by redact's rule.
func secretParam(raw string) bool {
	i := strings.IndexAny(raw, "?#")
	if i < 0 {
		return false
	}
	for _, p := range strings.FieldsFunc(raw[i+1:], func(r rune) bool { return r == '&' || r == ';' || r == '#' }) {
		if name, _, ok := strings.Cut(p, "="); ok && redact.IsSecretName(name) {
			return true
		}
	}
	return false
}

// scanParams sorts the secret parameters of a URL (by redact's rule) into
// the spec's three URL rules; a parameter is reported once, by the first
// pattern that matches it.
func (a *audit) scanParams(w where, raw string, b *budget) {
	seen := map[string]bool{}
	for _, p := range []struct {
		rule string
		re   func() *regexp.Regexp
	}{{"token_in_url", urlBearerParam}, {"secret_in_url", urlSecretParam}, {"secret_param_in_url", urlGenericParam}} {
		for _, m := range b.findAll(p.re(), raw) {
			name, v := raw[m[2]:m[3]], raw[m[4]:m[5]]
			// A value Gasoline's own capture scrubbed was a secret the page
			// really sent: still a finding, though no placeholder is.
			scrubbed := v == redact.Redacted || strings.EqualFold(v, "%5Bredacted%5D")
			if v == "" || seen[strings.ToLower(name)] || !redact.IsSecretName(name) || (!scrubbed && ignoredSecret(v)) {
				continue
			}
			seen[strings.ToLower(name)] = true
			// The redacted URL already shows the value.
			a.add(w, p.rule, Critical, name, "")
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
	if !a.enabled(Transport) || scheme(u) != "http" || IsLocalhost(u) {
		return
	}
	if scheme(page) == "https" {
		w.page = RedactURL(page)
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
