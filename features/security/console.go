package security

import (
	"regexp"
	"strings"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// scanConsole reads console messages and their arguments: credential
// formats (credentials), JWTs, Bearer credentials, secret names' values and
// personal data (pii_exposure).
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
		taken := a.scanSecrets(w, text, &b, false)
		if a.enabled(PIIExposure) {
			a.scanLogPII(w, text, &b, taken)
		}
	}
}

// scanLogPII flags personal data that should never be logged, outside the
// secrets scanSecrets took.
func (a *audit) scanLogPII(w where, text string, b *budget, taken [][2]int) {
	overlaps := func(s, e int) bool {
		for _, t := range taken {
			if s < t[1] && e > t[0] {
				return true
			}
		}
		return false
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
