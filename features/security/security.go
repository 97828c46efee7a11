// Package security audits what Gasoline captured (network requests and
// bodies, console output, WebSocket traffic) for exposed credentials,
// endpoints serving personal data without authentication, personal data in
// logs and responses, and insecure transport. Evidence is always redacted:
// a secret never leaves this package in full.
package security

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Limits, from the spec.
const (
	MaxPerCategory = 20       // findings reported per category
	MaxMatches     = 100      // regex matches looked at per scanned text
	MaxScan        = 50 << 10 // bytes of each text scanned
	PIIDepth       = 5        // JSON nesting walked for personal data
)

// Auth is whether a request carried an Authorization header. Capture drops
// the header's value, so presence is a flag the extension sets; entries
// from an extension that does not send it are AuthUnknown, which never
// counts as missing authentication.
type Auth uint8

// Auth states.
const (
	AuthUnknown Auth = iota
	AuthPresent
	AuthAbsent
)

// AuthOf turns the extension's optional hasAuthHeader flag into an Auth.
func AuthOf(hasAuthHeader *bool) Auth {
	switch {
	case hasAuthHeader == nil:
		return AuthUnknown
	case *hasAuthHeader:
		return AuthPresent
	}
	return AuthAbsent
}

func (a Auth) String() string {
	return [...]string{"unknown", "present", "absent"}[a]
}

// Request is one captured body with whether it was authenticated.
type Request struct {
	capture.NetworkBody
	Auth Auth
}

// Input is the captured data an audit reads. Every slice may be empty.
type Input struct {
	Bodies  []Request
	Network []capture.NetworkEntry
	Logs    []capture.LogEntry
	WS      []capture.WSEvent
	WSConns []capture.WSConnection
}

// Options narrow an audit.
type Options struct {
	Checks      []string // categories to run; empty means all
	URLFilter   string   // substring a request, socket or console page URL must contain
	SeverityMin string   // lowest severity reported; empty means warning
}

// Validate reports an unknown check or severity.
func (o Options) Validate() error {
	for _, c := range o.Checks {
		if !slices.Contains(AllChecks, c) {
			return fmt.Errorf("checks: %q is not one of %s", c, strings.Join(AllChecks, ", "))
		}
	}
	if o.SeverityMin != "" && !slices.Contains(Severities, o.SeverityMin) {
		return fmt.Errorf("severity_min: %q is not one of %s", o.SeverityMin, strings.Join(Severities, ", "))
	}
	return nil
}

// Finding is one issue at one place; the same issue seen again at the same
// place raises Count instead of repeating. Title, CWE and fix are stated
// once per rule in Report.Rules.
type Finding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Category string `json:"category"`
	// In is where it was seen: url, request_body, response_body, console,
	// websocket.
	In       string   `json:"in"`
	Method   string   `json:"method,omitempty"`
	URL      string   `json:"url,omitempty"` // redacted; relative to Report.Origin when it shares it
	Page     string   `json:"page,omitempty"`
	Status   int      `json:"status,omitempty"`
	Field    string   `json:"field,omitempty"`    // query parameter or JSON key
	Evidence string   `json:"evidence,omitempty"` // redacted match
	PII      []string `json:"pii_fields,omitempty"`
	Auth     string   `json:"auth,omitempty"` // present, absent, unknown (response findings)
	// NeverAuthenticated: no call to the endpoint carried an Authorization
	// header during the session.
	NeverAuthenticated bool   `json:"never_authenticated,omitempty"`
	Resource           string `json:"resource,omitempty"` // mixed content: script, style, image, font, other
	Level              string `json:"level,omitempty"`    // console level
	Source             string `json:"source,omitempty"`   // console call site
	Note               string `json:"note,omitempty"`
	Count              int    `json:"count,omitempty"` // occurrences, when more than one
}

// Report is an audit's result.
type Report struct {
	// Origin is stated once: finding URLs on it are relative.
	Origin   string          `json:"origin,omitempty"`
	Findings []Finding       `json:"findings"`
	Rules    map[string]Rule `json:"rules,omitempty"`
	Summary  Summary         `json:"summary"`
}

// Summary counts what was reported and what was read.
type Summary struct {
	Total    int `json:"total"`
	Critical int `json:"critical,omitempty"`
	Warning  int `json:"warning,omitempty"`
	Info     int `json:"info,omitempty"`
	// Checks lists the categories that ran, so their names are known
	// without listing them in the tool's schema.
	Checks []string `json:"checks"`
	// BelowMin counts findings hidden by severity_min.
	BelowMin int `json:"below_severity_min,omitempty"`
	// Omitted counts findings over the per-category cap, by category.
	Omitted map[string]int `json:"omitted,omitempty"`
	Scanned Scanned        `json:"scanned"`
}

// Scanned says how much captured data the audit read.
type Scanned struct {
	NetworkRequests int `json:"network_requests"`
	Bodies          int `json:"bodies"`
	ConsoleEntries  int `json:"console_entries"`
	WSMessages      int `json:"websocket_messages,omitempty"`
	UniqueEndpoints int `json:"unique_endpoints"`
}

// Audit runs the requested checks over the captured data. Options must be
// valid (see Validate).
func Audit(in Input, opt Options) Report {
	a := newAudit(opt)
	a.scanRequests(in)
	a.scanBodies(in.Bodies)
	a.scanConsole(in.Logs)
	a.scanWebSockets(in.WS, in.WSConns)
	return a.report()
}

func (a *audit) report() Report {
	minRank := rank(cmp.Or(a.opt.SeverityMin, Warning))
	r := Report{Findings: []Finding{}, Rules: map[string]Rule{}}
	perCat := map[string]int{}
	ordered := slices.Clone(a.findings)
	slices.SortStableFunc(ordered, func(x, y Finding) int {
		return cmp.Or(
			cmp.Compare(slices.Index(AllChecks, x.Category), slices.Index(AllChecks, y.Category)),
			cmp.Compare(rank(y.Severity), rank(x.Severity)))
	})
	for _, f := range ordered {
		if rank(f.Severity) < minRank {
			r.Summary.BelowMin++
			continue
		}
		if perCat[f.Category] >= MaxPerCategory {
			if r.Summary.Omitted == nil {
				r.Summary.Omitted = map[string]int{}
			}
			r.Summary.Omitted[f.Category]++
			continue
		}
		perCat[f.Category]++
		if f.Count == 1 {
			f.Count = 0
		}
		if f.URL != "" {
			f.Note = envNote(f.URL)
		}
		r.Findings = append(r.Findings, f)
		r.Rules[f.Rule] = Rules[f.Rule]
		switch f.Severity {
		case Critical:
			r.Summary.Critical++
		case Warning:
			r.Summary.Warning++
		default:
			r.Summary.Info++
		}
	}
	r.Summary.Total = len(r.Findings)
	r.Summary.Scanned = a.scanned
	for i, c := range AllChecks {
		if a.on[i] {
			r.Summary.Checks = append(r.Summary.Checks, c)
		}
	}
	r.Summary.Scanned.UniqueEndpoints = len(a.endpoints)
	if len(r.Rules) == 0 {
		r.Rules = nil
	}
	r.Origin = commonOrigin(r.Findings)
	if r.Origin != "" {
		for i := range r.Findings {
			r.Findings[i].URL = relative(r.Findings[i].URL, r.Origin)
			r.Findings[i].Page = relative(r.Findings[i].Page, r.Origin)
		}
	}
	return r
}

// commonOrigin is the origin most finding URLs share, so it is stated once.
func commonOrigin(fs []Finding) string {
	counts := map[string]int{}
	best := ""
	for _, f := range fs {
		o := origin(f.URL)
		if o == "" {
			continue
		}
		counts[o]++
		if counts[o] > counts[best] || (counts[o] == counts[best] && o < best) {
			best = o
		}
	}
	return best
}

func origin(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	j := strings.IndexAny(u[i+3:], "/?#")
	if j < 0 {
		return u
	}
	return u[:i+3+j]
}

func relative(u, origin string) string {
	if rest, ok := strings.CutPrefix(u, origin); ok && (rest == "" || strings.ContainsRune("/?#", rune(rest[0]))) {
		return cmp.Or(rest, "/")
	}
	return u
}

// Line is the report in one line, for the audit log.
func (r Report) Line() string {
	s := r.Summary
	return fmt.Sprintf("%d findings (%d critical, %d warning, %d info) in %d requests, %d bodies, %d console entries",
		s.Total, s.Critical, s.Warning, s.Info, s.Scanned.NetworkRequests, s.Scanned.Bodies, s.Scanned.ConsoleEntries)
}
