package sarif

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gasoline-dev/gasoline/features/security"
	"github.com/gasoline-dev/gasoline/features/sourcemap"
)

// FromSecurity renders a security audit as a SARIF document of one run.
func FromSecurity(r security.Report) Log {
	return Log{Schema: Schema, Version: Version, Runs: []Run{SecurityRun(r)}}
}

// SecurityRun renders a security audit as a run, to stand alone or next to
// the accessibility run in one document. Each finding is a result at the
// URL it was seen at (the script for console output); evidence stays
// redacted as the audit made it.
func SecurityRun(r security.Report) Run {
	run := Run{
		Tool:        Tool{Driver: Driver{Name: "gasoline-security", InformationURI: "https://github.com/gasoline-dev/gasoline"}},
		Invocations: []Invocation{{ExecutionSuccessful: true}},
		Results:     []Result{},
	}
	ids := make([]string, 0, len(r.Rules))
	for id := range r.Rules {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		rule := r.Rules[id]
		tags := []string{"security", security.Rules[id].Category}
		if rule.CWE != "" {
			tags = append(tags, "external/cwe/"+strings.ToLower(rule.CWE))
		}
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, Rule{
			ID: id, ShortDescription: &Message{rule.Title}, FullDescription: &Message{rule.Fix},
			Properties: map[string]any{"tags": tags},
		})
	}
	for _, f := range r.Findings {
		uri := absolute(r.Origin, f.URL)
		if f.In == "console" {
			uri = f.Source
		}
		if uri == "" {
			uri = absolute(r.Origin, f.Page)
		}
		if uri == "" {
			uri = f.In // a console call with no known script or page
		}
		loc := Location{PhysicalLocation: PhysicalLocation{ArtifactLocation: ArtifactLocation{URI: uri}}}
		if f.In == "console" {
			// A call site "url:line:col" is the script and a region in it.
			if u, line, col, ok := sourcemap.SplitLocation(uri); ok && col >= 1 {
				loc.PhysicalLocation = PhysicalLocation{ArtifactLocation{u}, &Region{StartLine: line, StartColumn: col}}
			}
		}
		if f.Page != "" && f.In != "console" {
			loc.LogicalLocations = []LogicalLocation{{FullyQualifiedName: absolute(r.Origin, f.Page), Kind: "page"}}
		}
		run.Results = append(run.Results, Result{RuleID: f.Rule, RuleIndex: slices.Index(ids, f.Rule),
			Level: securityLevel(f.Severity), Message: Message{securityMessage(r.Rules[f.Rule].Title, f)}, Locations: []Location{loc}})
	}
	return run
}

func securityLevel(sev string) string {
	switch sev {
	case security.Critical:
		return "error"
	case security.Warning:
		return "warning"
	}
	return "note"
}

func absolute(origin, u string) string {
	if u == "" || strings.Contains(u, "://") {
		return u
	}
	return origin + u
}

// securityMessage states the finding in one line: what, where, the
// redacted evidence.
func securityMessage(title string, f security.Finding) string {
	var b strings.Builder
	b.WriteString(title)
	if f.Method != "" {
		b.WriteString(": " + f.Method + " " + f.URL)
	}
	for _, kv := range [][2]string{{"field", f.Field}, {"evidence", f.Evidence}, {"personal data", strings.Join(f.PII, ", ")}, {"resource", f.Resource}} {
		if kv[1] != "" {
			b.WriteString("; " + kv[0] + " " + kv[1])
		}
	}
	if f.Count > 1 {
		b.WriteString("; seen " + strconv.Itoa(f.Count) + " times")
	}
	return b.String()
}
