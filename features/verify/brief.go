package verify

import "fmt"

// Brief is a result in one line, for the audit log.
type Brief interface{ Brief() string }

// Brief implements Brief.
func (r *StartResult) Brief() string {
	return fmt.Sprintf("%s baseline: %d console errors, %d network errors", r.SessionID, r.Baseline.ConsoleErrors, r.Baseline.NetworkErrors)
}

// Brief implements Brief.
func (r *WatchResult) Brief() string { return r.SessionID + " watching" }

// Brief implements Brief.
func (r *CompareResult) Brief() string {
	if r.Result == nil {
		return r.SessionID + " " + r.Status
	}
	return fmt.Sprintf("%s %s: %d → %d issues", r.SessionID, r.Result.Verdict, r.Result.Before.TotalIssues, r.Result.After.TotalIssues)
}

// Brief implements Brief.
func (r *StatusResult) Brief() string { return r.SessionID + " " + r.Status }

// Brief implements Brief.
func (r *ListResult) Brief() string { return fmt.Sprintf("%d sessions", len(r.Sessions)) }

// Brief implements Brief.
func (r *CancelResult) Brief() string { return r.SessionID + " cancelled" }
