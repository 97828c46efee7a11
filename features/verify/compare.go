package verify

import (
	"strconv"
	"strings"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/features/snapshot"
)

// Verdicts, as the spec names them.
const (
	Fixed          = "fixed"              // every baseline issue resolved, nothing new
	Improved       = "improved"           // some resolved, nothing new
	Unchanged      = "unchanged"          // the same issues
	DifferentIssue = "different_issue"    // baseline issues resolved, new ones introduced
	Regressed      = "regressed"          // more issues than the baseline
	NoIssues       = "no_issues_detected" // nothing failed before or after
)

// Change types. NotCalled is a failing baseline request that was not made
// again, so it could not be compared.
const (
	Resolved        = "resolved"
	ChangedType     = "changed"
	UnchangedType   = "unchanged"
	NotCalled       = "not_called"
	CategoryConsole = "console"
	CategoryNetwork = "network"
)

// StartResult answers start.
type StartResult struct {
	SessionID string   `json:"session_id"`
	Status    string   `json:"status"`
	Baseline  Baseline `json:"baseline"`
}

// Baseline is the baseline in counts, with each issue named once.
type Baseline struct {
	snapshot.Summary
	ErrorDetails []Detail `json:"error_details,omitempty"`
}

// Detail is one baseline issue.
type Detail struct {
	Type    string `json:"type"` // console, network
	Message string `json:"message,omitempty"`
	Count   int    `json:"count,omitempty"`
	Method  string `json:"method,omitempty"`
	URL     string `json:"url,omitempty"`
	Status  int    `json:"status,omitempty"`
	Error   string `json:"error,omitempty"`
	// At is where a console error was thrown (snapshot.Issue.At).
	At string `json:"at,omitempty"`
}

// WatchResult answers watch.
type WatchResult struct {
	SessionID string `json:"session_id"`
	Status    string `json:"status"`
	Message   string `json:"message"`
}

// CompareResult answers compare: a Result, or a Message saying why the
// window could not be compared yet.
type CompareResult struct {
	SessionID string  `json:"session_id"`
	Status    string  `json:"status"`
	Label     string  `json:"label,omitempty"`
	Result    *Result `json:"result,omitempty"`
	Message   string  `json:"message,omitempty"`
}

// Result is the comparison of baseline and watch window.
type Result struct {
	Verdict string `json:"verdict"`
	Before  Counts `json:"before"`
	After   Counts `json:"after"`
	// Changes is what became of each baseline issue; NewIssues what the
	// window added.
	Changes         []Change   `json:"changes,omitempty"`
	NewIssues       []Change   `json:"new_issues,omitempty"`
	PerformanceDiff *perf.Diff `json:"performance_diff,omitempty"`
}

// Counts is one side of a comparison in numbers.
type Counts struct {
	ConsoleErrors int `json:"console_errors"`
	NetworkErrors int `json:"network_errors"`
	TotalIssues   int `json:"total_issues"`
}

// Change is one issue compared. A new issue has no Type (its list says
// it) and no Before; an unchanged one no After (it is Before).
type Change struct {
	Type     string `json:"type,omitempty"`
	Category string `json:"category"`
	Before   string `json:"before,omitempty"`
	After    string `json:"after,omitempty"`
}

// StatusResult answers status.
type StatusResult struct {
	SessionID      string        `json:"session_id"`
	Label          string        `json:"label,omitempty"`
	Status         string        `json:"status"`
	URLFilter      string        `json:"url_filter,omitempty"`
	CreatedAt      capture.Time  `json:"created_at"`
	ExpiresAt      capture.Time  `json:"expires_at"`
	WatchStartedAt *capture.Time `json:"watch_started_at,omitempty"`
	Baseline       Counts        `json:"baseline"`
	Verdict        string        `json:"verdict,omitempty"`
}

// ListResult answers status without session_id.
type ListResult struct {
	Sessions []StatusResult `json:"sessions"`
}

// CancelResult answers cancel.
type CancelResult struct {
	SessionID string `json:"session_id"`
	Status    string `json:"status"`
}

func countsOf(s *snapshot.Snapshot) Counts {
	c := Counts{ConsoleErrors: s.ErrorCount(), NetworkErrors: len(s.FailingEndpoints())}
	c.TotalIssues = c.ConsoleErrors + c.NetworkErrors
	return c
}

func baselineOf(s *snapshot.Snapshot) Baseline {
	b := Baseline{Summary: s.Summary()}
	for _, e := range s.Errors {
		b.ErrorDetails = append(b.ErrorDetails, Detail{Type: CategoryConsole, Message: e.Message, Count: e.Count, At: e.At})
	}
	for _, e := range s.FailingEndpoints() {
		b.ErrorDetails = append(b.ErrorDetails, Detail{Type: CategoryNetwork, Method: e.Method, URL: e.URL, Status: e.Status, Error: e.Error})
	}
	return b
}

// Compare diffs a baseline against a watch window. It returns nil and the
// reason when the window cannot answer: nothing was captured in it, or none
// of the baseline's issues could be checked and nothing new failed.
func Compare(base, after *snapshot.Snapshot) (*Result, string) {
	if after.Events == 0 {
		return nil, "Nothing was captured since watch: ask the user to reproduce the scenario, then compare again."
	}
	res := &Result{Before: countsOf(base), After: countsOf(after)}
	var resolved, remaining, added int
	var notCalled []string

	for _, p := range snapshot.MatchIssues(base.Errors, after.Errors) {
		switch {
		case p.Before == nil:
			added++
			res.NewIssues = append(res.NewIssues, Change{Category: CategoryConsole, After: issueLabel(p.After)})
		case p.After == nil:
			resolved++
			res.Changes = append(res.Changes, Change{Resolved, CategoryConsole, issueLabel(p.Before), "(not seen)"})
		case p.Before.Count == p.After.Count:
			remaining++
			res.Changes = append(res.Changes, Change{Type: UnchangedType, Category: CategoryConsole, Before: issueLabel(p.Before)})
		default:
			remaining++
			res.Changes = append(res.Changes, Change{ChangedType, CategoryConsole, issueLabel(p.Before), issueLabel(p.After)})
		}
	}

	for _, p := range snapshot.MatchEndpoints(base.Endpoints, after.Endpoints) {
		was := p.Before != nil && p.Before.Failing()
		switch {
		case was && p.After == nil:
			notCalled = append(notCalled, p.Before.Label())
			res.Changes = append(res.Changes, Change{NotCalled, CategoryNetwork, p.Before.Label(), "(not called)"})
		case was && !p.After.Failing():
			resolved++
			res.Changes = append(res.Changes, Change{Resolved, CategoryNetwork, p.Before.Label(), p.After.Label()})
		case was && p.Before.Label() == p.After.Label():
			remaining++
			res.Changes = append(res.Changes, Change{Type: UnchangedType, Category: CategoryNetwork, Before: p.Before.Label()})
		case was:
			remaining++
			res.Changes = append(res.Changes, Change{ChangedType, CategoryNetwork, p.Before.Label(), p.After.Label()})
		case p.After != nil && p.After.Failing():
			added++
			c := Change{Category: CategoryNetwork, After: p.After.Label()}
			if p.Before != nil {
				c.Before = p.Before.Label() // worked in the baseline
			}
			res.NewIssues = append(res.NewIssues, c)
		}
	}

	if len(notCalled) > 0 && resolved+remaining+added == 0 {
		return nil, "The baseline's failing requests (" + strings.Join(notCalled, "; ") +
			") were not made again since watch: ask the user to repeat the scenario, then compare again."
	}
	res.Verdict = verdict(res.Before.TotalIssues, res.After.TotalIssues, resolved, len(base.Errors)+len(base.FailingEndpoints()), added)
	res.PerformanceDiff = perf.Compare(base.Performance, after.Performance)
	return res, ""
}

// verdict applies the spec's table. before and after count issues
// (repeats included); resolved, baseline and added count distinct issues.
func verdict(before, after, resolved, baseline, added int) string {
	switch {
	case before == 0 && after == 0:
		return NoIssues
	case added == 0 && resolved == baseline:
		return Fixed
	case added == 0 && after > before:
		return Regressed // the same errors, more often
	case added == 0 && resolved > 0:
		return Improved
	case added == 0:
		return Unchanged
	case baseline > 0 && resolved == baseline:
		return DifferentIssue
	case resolved > 0 && after <= before:
		return DifferentIssue
	}
	return Regressed
}

func issueLabel(i *snapshot.Issue) string {
	l := i.Message
	if i.Count > 1 {
		l += " (x" + strconv.Itoa(i.Count) + ")"
	}
	if i.At != "" {
		l += " at " + i.At
	}
	return l
}
