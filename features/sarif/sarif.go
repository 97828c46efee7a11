// Package sarif renders findings as SARIF 2.1.0, the format code-scanning
// tools and CI dashboards read.
package sarif

import (
	"github.com/gasoline-dev/gasoline/features/a11y"
)

// Version and schema of the documents this package writes.
const (
	Version = "2.1.0"
	Schema  = "https://json.schemastore.org/sarif-2.1.0.json"
)

// Log is a SARIF document.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one tool's findings.
type Run struct {
	Tool        Tool         `json:"tool"`
	Invocations []Invocation `json:"invocations,omitempty"`
	Results     []Result     `json:"results"`
}

// Tool names the analyser and its rules.
type Tool struct {
	Driver Driver `json:"driver"`
}

// Driver is the analyser.
type Driver struct {
	Name           string `json:"name"`
	InformationURI string `json:"informationUri,omitempty"`
	Rules          []Rule `json:"rules,omitempty"`
}

// Rule describes one check.
type Rule struct {
	ID               string         `json:"id"`
	ShortDescription *Message       `json:"shortDescription,omitempty"`
	FullDescription  *Message       `json:"fullDescription,omitempty"`
	HelpURI          string         `json:"helpUri,omitempty"`
	Properties       map[string]any `json:"properties,omitempty"`
}

// Message is SARIF's text wrapper.
type Message struct {
	Text string `json:"text"`
}

// Invocation records when and how the analysis ran.
type Invocation struct {
	ExecutionSuccessful bool   `json:"executionSuccessful"`
	EndTimeUTC          string `json:"endTimeUtc,omitempty"`
}

// Result is one finding at one or more places.
type Result struct {
	RuleID    string     `json:"ruleId"`
	RuleIndex int        `json:"ruleIndex"`
	Level     string     `json:"level"`
	Message   Message    `json:"message"`
	Locations []Location `json:"locations"`
}

// Location is a page URL plus the element's CSS selector.
type Location struct {
	PhysicalLocation PhysicalLocation  `json:"physicalLocation"`
	LogicalLocations []LogicalLocation `json:"logicalLocations,omitempty"`
}

// PhysicalLocation points at the page.
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           *Region          `json:"region,omitempty"`
}

// ArtifactLocation is the page URL.
type ArtifactLocation struct {
	URI string `json:"uri"`
}

// Region carries the element's HTML as a snippet, or a script position.
type Region struct {
	StartLine   int      `json:"startLine,omitempty"`
	StartColumn int      `json:"startColumn,omitempty"`
	Snippet     *Message `json:"snippet,omitempty"`
}

// LogicalLocation is the element, named by its selector.
type LogicalLocation struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// Level maps an axe-core impact to a SARIF level.
func Level(impact string) string {
	switch impact {
	case "critical", "serious":
		return "error"
	case "moderate":
		return "warning"
	}
	return "note"
}

// FromAudit renders an accessibility audit's violations: one SARIF result
// per failing element, its rule described once in the driver.
func FromAudit(r a11y.Result) Log {
	run := Run{
		Tool:        Tool{Driver: Driver{Name: "axe-core", InformationURI: "https://github.com/dequelabs/axe-core"}},
		Invocations: []Invocation{{ExecutionSuccessful: true, EndTimeUTC: r.Timestamp}},
		Results:     []Result{},
	}
	for _, v := range r.Violations {
		idx := len(run.Tool.Driver.Rules)
		rule := Rule{ID: v.ID, HelpURI: v.HelpURL, Properties: map[string]any{"impact": v.Impact}}
		if v.Help != "" {
			rule.ShortDescription = &Message{v.Help}
		}
		if v.Description != "" {
			rule.FullDescription = &Message{v.Description}
		}
		if len(v.Tags) > 0 {
			rule.Properties["tags"] = v.Tags
		}
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rule)
		for _, n := range v.Nodes {
			text := v.Help
			if n.FailureSummary != "" {
				text += ". " + n.FailureSummary
			}
			loc := Location{
				PhysicalLocation: PhysicalLocation{ArtifactLocation: ArtifactLocation{URI: r.URL}},
				LogicalLocations: []LogicalLocation{{FullyQualifiedName: n.Selector, Kind: "element"}},
			}
			if n.HTML != "" {
				loc.PhysicalLocation.Region = &Region{Snippet: &Message{n.HTML}}
			}
			run.Results = append(run.Results, Result{RuleID: v.ID, RuleIndex: idx, Level: Level(v.Impact),
				Message: Message{text}, Locations: []Location{loc}})
		}
	}
	return Log{Schema: Schema, Version: Version, Runs: []Run{run}}
}
