package security

import (
	"regexp"
	"strings"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// scanConsole reads console messages and their arguments: credential
// formats (credentials), tokens, passwords and personal data
// (pii_exposure).
func (a *audit) scanConsole(logs []capture.LogEntry) {
	var sb strings.Builder
	for _, e := range logs {
		if a.opt.URLFilter != "" && !a.match(e.Page) && !a.match(e.Source) {
			continue
		}
		a.scanned.ConsoleEntries++
		text := e.Message
		if len(e.Args) > 0 {
			n := len(e.Message)
			for _, arg := range e.Args {
				n += 1 + len(arg)
			}
			sb.Reset()
			sb.Grow(min(n, MaxScan))
			sb.WriteString(e.Message)
			for _, arg := range e.Args {
				sb.WriteByte(' ')
				sb.WriteString(arg)
			}
			text = sb.String()
		}
		text = clip(text)
		w := where{in: "console", level: e.Level, source: a.redactURL(e.Source), page: a.redactURL(e.Page)}
		b := budget(MaxMatches)
		a.scanSecrets(w, text, &b, false)
		if a.enabled(PIIExposure) {
			a.scanLogPII(w, text, &b)
		}
	}
}

// scanLogPII flags what should never be logged. A bearer token that is a
// JWT is reported once, as a bearer token.
func (a *audit) scanLogPII(w where, text string, b *budget) {
	var taken [][2]int
	overlaps := func(s, e int) bool {
		for _, t := range taken {
			if s < t[1] && e > t[0] {
				return true
			}
		}
		return false
	}
	if containsWord(text, "bearer") {
		for _, m := range b.findAll(bearerPattern(), text) {
			if v := text[m[2]:m[3]]; !ignoredSecret(v) {
				taken = append(taken, [2]int{m[0], m[1]})
				a.add(w, "bearer_in_log", Critical, "", "Bearer "+Redact(v))
			}
		}
	}
	for _, m := range b.findAll(jwtPattern(), text) {
		if v := text[m[0]:m[1]]; !overlaps(m[0], m[1]) && !ignoredSecret(v) {
			taken = append(taken, [2]int{m[0], m[1]})
			a.add(w, "jwt_in_log", Critical, "", Redact(v))
		}
	}
	if containsWord(text, "password") || containsWord(text, "passwd") || containsWord(text, "pwd") {
		for _, m := range b.findAll(passwordPattern(), text) {
			if v := text[m[2]:m[3]]; !overlaps(m[2], m[3]) && !isPlaceholder(v) {
				a.add(w, "password_in_log", Warning, "", Redact(v))
			}
		}
	}
	// Emails are counted per call site, the first one as evidence: a log
	// line printing users prints many.
	emails(text, b, func(s, e int) {
		if f := a.add(w, "email_in_log", Info, "", ""); f != nil && f.Evidence == "" {
			f.Evidence = Redact(text[s:e])
		}
	})
	windows, offsets := numberRuns(text)
	for i, win := range windows {
		for _, p := range logPII {
			for _, m := range b.findAll(p.re(), win) {
				v := win[m[0]:m[1]]
				if overlaps(offsets[i]+m[0], offsets[i]+m[1]) || (p.kind == "credit_card" && !luhn(v)) {
					continue
				}
				sev := p.sev
				if isMock(text) {
					sev = Info
				}
				a.add(w, "pii_in_log", sev, p.kind, Redact(v))
			}
		}
	}
}

// logPII are the personal-data formats looked for in console text.
var logPII = []struct {
	kind, sev string
	re        func() *regexp.Regexp
}{{"ssn", Warning, ssnPattern}, {"credit_card", Warning, cardPattern}, {"phone", Info, phonePattern}}
