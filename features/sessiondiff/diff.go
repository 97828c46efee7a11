package sessiondiff

import (
	"fmt"

	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/features/snapshot"
)

// An endpoint's mean duration change is reported when it passes both.
const (
	DurationPct   = 50
	DurationAbsMS = 100
)

// An endpoint at least SlowerFactor times and SlowerAbsMS slower in b is a
// performance regression in the verdict, as a user would read it.
const (
	SlowerFactor = 2
	SlowerAbsMS  = 100
)

// Verdicts, as the spec names them.
const (
	Improved  = "improved"  // errors resolved, nothing new, no performance regression
	Regressed = "regressed" // new errors or performance regressions
	Mixed     = "mixed"     // both
	Unchanged = "unchanged"
)

// CompareResult answers compare. Every empty part of the diff is left out.
type CompareResult struct {
	Action  string      `json:"action"` // compared
	A       string      `json:"a"`
	B       string      `json:"b"`
	Diff    SessionDiff `json:"diff,omitzero"`
	Summary Summary     `json:"summary"`
}

// SessionDiff is what changed from a to b.
type SessionDiff struct {
	Errors      ErrorDiff   `json:"errors,omitzero"`
	Network     NetworkDiff `json:"network,omitzero"`
	Performance *perf.Diff  `json:"performance,omitempty"`
	WebSockets  WSDiff      `json:"websockets,omitzero"`
}

// ErrorDiff sorts console errors and warnings by normalised message.
type ErrorDiff struct {
	New       []Message `json:"new,omitempty"`
	Resolved  []Message `json:"resolved,omitempty"`
	Unchanged []Message `json:"unchanged,omitempty"`
}

// Message is a console error or warning and how often it was seen (in b,
// or in a for a resolved one).
type Message struct {
	Type    string `json:"type"` // console (an error), warning
	Message string `json:"message"`
	Count   int    `json:"count"`
	At      string `json:"at,omitempty"` // where the newest was thrown (snapshot.Issue.At)
}

// NetworkDiff compares endpoints (method + path).
type NetworkDiff struct {
	// NewErrors fail in b and did not in a (Before is their status in a).
	NewErrors []Call `json:"new_errors,omitempty"`
	// StatusChanges are endpoints of both whose status or speed changed.
	StatusChanges    []StatusChange `json:"status_changes,omitempty"`
	NewEndpoints     []Call         `json:"new_endpoints,omitempty"`
	MissingEndpoints []Call         `json:"missing_endpoints,omitempty"`
}

// Call is one endpoint and its status.
type Call struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	Before int    `json:"before,omitempty"`
}

// StatusChange is one endpoint whose status or mean duration changed; a
// status of 0 means no response.
type StatusChange struct {
	Method         string `json:"method"`
	URL            string `json:"url"`
	Before         int    `json:"before"`
	After          int    `json:"after"`
	DurationChange string `json:"duration_change,omitempty"` // "+340ms"
}

// WSDiff lists WebSocket URLs whose state changed; a missing side was not connected.
type WSDiff struct {
	ConnectionChanges []WSChange `json:"connection_changes,omitempty"`
}

// WSChange is one WebSocket URL's state in a and b.
type WSChange struct {
	URL    string `json:"url"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// Summary counts the diff and gives the verdict. Errors count repeats.
type Summary struct {
	Verdict                string `json:"verdict"`
	NewErrors              int    `json:"new_errors"`
	ResolvedErrors         int    `json:"resolved_errors"`
	PerformanceRegressions int    `json:"performance_regressions,omitempty"`
	// SlowerEndpoints are endpoints of both at least SlowerFactor times and
	// SlowerAbsMS slower in b: performance regressions of the verdict.
	SlowerEndpoints       int `json:"slower_endpoints,omitempty"`
	NewNetworkErrors      int `json:"new_network_errors,omitempty"`
	ResolvedNetworkErrors int `json:"resolved_network_errors,omitempty"`
}

// Compare diffs snapshot a against b.
func Compare(a, b *snapshot.Snapshot) (SessionDiff, Summary) {
	var d SessionDiff
	var sum Summary
	for _, kind := range []struct {
		typ    string
		a, b   []snapshot.Issue
		counts bool // warnings are listed, but do not make a verdict
	}{{"console", a.Errors, b.Errors, true}, {"warning", a.Warnings, b.Warnings, false}} {
		for _, p := range snapshot.MatchIssues(kind.a, kind.b) {
			switch {
			case p.Before == nil:
				d.Errors.New = append(d.Errors.New, Message{kind.typ, p.After.Message, p.After.Count, p.After.At})
				if kind.counts {
					sum.NewErrors += p.After.Count
				}
			case p.After == nil:
				d.Errors.Resolved = append(d.Errors.Resolved, Message{kind.typ, p.Before.Message, p.Before.Count, p.Before.At})
				if kind.counts {
					sum.ResolvedErrors += p.Before.Count
				}
			default:
				d.Errors.Unchanged = append(d.Errors.Unchanged, Message{kind.typ, p.After.Message, p.After.Count, p.After.At})
			}
		}
	}

	for _, p := range snapshot.MatchEndpoints(a.Endpoints, b.Endpoints) {
		switch {
		case p.Before == nil && p.After.Failing():
			d.Network.NewErrors = append(d.Network.NewErrors, call(p.After))
			sum.NewNetworkErrors++
		case p.Before == nil:
			d.Network.NewEndpoints = append(d.Network.NewEndpoints, call(p.After))
		case p.After == nil:
			d.Network.MissingEndpoints = append(d.Network.MissingEndpoints, call(p.Before))
		case p.After.Failing() && !p.Before.Failing():
			c := call(p.After)
			c.Before = p.Before.Status
			d.Network.NewErrors = append(d.Network.NewErrors, c)
			sum.NewNetworkErrors++
		default:
			if p.Before.Failing() && !p.After.Failing() {
				sum.ResolvedNetworkErrors++
			}
			if slower(p.Before.DurationMS, p.After.DurationMS) {
				sum.SlowerEndpoints++
			}
			dur := durationChange(p.Before.DurationMS, p.After.DurationMS)
			if p.Before.Label() != p.After.Label() || dur != "" {
				d.Network.StatusChanges = append(d.Network.StatusChanges,
					StatusChange{p.After.Method, p.After.URL, p.Before.Status, p.After.Status, dur})
			}
		}
	}

	for _, p := range snapshot.MatchSockets(a.WebSockets, b.WebSockets) {
		c := WSChange{}
		if p.Before != nil {
			c.URL, c.Before = p.Before.URL, p.Before.State
		}
		if p.After != nil {
			c.URL, c.After = p.After.URL, p.After.State
		}
		if c.Before != c.After {
			d.WebSockets.ConnectionChanges = append(d.WebSockets.ConnectionChanges, c)
		}
	}

	d.Performance = perf.Compare(a.Performance, b.Performance)
	sum.PerformanceRegressions = d.Performance.Regressions()
	sum.Verdict = verdict(sum.ResolvedErrors+sum.ResolvedNetworkErrors, sum.NewErrors+sum.NewNetworkErrors, sum.PerformanceRegressions+sum.SlowerEndpoints)
	return d, sum
}

// verdict applies the spec's rules; "mixed" takes precedence over
// "regressed" when something also got better.
func verdict(resolved, added, regressions int) string {
	worse := added > 0 || regressions > 0
	switch {
	case resolved > 0 && worse:
		return Mixed
	case worse:
		return Regressed
	case resolved > 0:
		return Improved
	}
	return Unchanged
}

func call(e *snapshot.Endpoint) Call {
	return Call{Method: e.Method, URL: e.URL, Status: e.Status, Error: e.Error}
}

// durationChange renders a mean duration change worth reporting ("+340ms"), else "".
func durationChange(before, after int) string {
	delta := after - before
	if abs(delta) <= DurationAbsMS || before == 0 || abs(delta)*100 <= before*DurationPct {
		return ""
	}
	return fmt.Sprintf("%+dms", delta)
}

// slower says an endpoint's mean duration regressed; 0 is no measure.
func slower(before, after int) bool {
	return before > 0 && after >= SlowerFactor*before && after-before >= SlowerAbsMS
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
