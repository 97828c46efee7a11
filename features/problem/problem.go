// Package problem defines the stable error codes every Gasoline surface
// reports, so an AI or the extension can act on a failure by its code.
package problem

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable failure kind.
type Code string

// The codes of the architecture contract.
const (
	InvalidParam          Code = "invalid_param"
	NotFound              Code = "not_found"
	Timeout               Code = "timeout"
	RateLimited           Code = "rate_limited"
	ExtensionNotConnected Code = "extension_not_connected"
	PilotDisabled         Code = "ai_web_pilot_disabled"
	RevokedByUser         Code = "revoked_by_user"
	CSPBlocked            Code = "csp_blocked"
	ScriptError           Code = "script_error"
	TooLarge              Code = "too_large"
	Forbidden             Code = "forbidden"
	// TokenRequired: a call to the human's API without the token that
	// only the user's own files hold.
	TokenRequired Code = "human_token_required"
	// DeniedByUser: the human said no to a pilot action in ask mode.
	DeniedByUser Code = "denied_by_user"
	// ApprovalTimeout: the human did not answer a pilot action in time.
	ApprovalTimeout Code = "approval_timeout"
	// OriginNotAccepted: an extension origin the human has not accepted
	// (or refused) in the dashboard, such as a Firefox install's.
	OriginNotAccepted Code = "origin_not_accepted"
	// DecisionsUnreadable: the file that holds the human's decisions could
	// not be read, so what the AI asks of capture is refused until the
	// human looks in the dashboard.
	DecisionsUnreadable Code = "decisions_unreadable"
	// NotSaved: the human's decision holds for this server but could not
	// be written to disk, so a restart would lose it.
	NotSaved Code = "decisions_not_saved"
	// TabNotVisible: a screenshot of a tab that is not the one showing
	// in its window; the browser only paints the tab on screen.
	TabNotVisible Code = "tab_not_visible"
	// ScreenshotsOff: the human turned AI screenshots off (ai_screenshots).
	ScreenshotsOff Code = "ai_screenshots_off"
	// StorageReadsOff: the human turned storage reads off (storage_reads).
	StorageReadsOff Code = "storage_reads_off"
	// NotActionable: the action's target is there but cannot take it
	// (covered by another element, disabled, hidden, not a text field).
	NotActionable Code = "not_actionable"
	// TabOwned: an action on a tab another AI session opened and owns.
	TabOwned Code = "tab_owned"
	Internal Code = "internal"
)

// Error is a failure with a code and a message that says what to do next.
type Error struct {
	Code    Code   `json:"error"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// New returns an *Error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// From returns err as an *Error, wrapping a plain error as Internal.
func From(err error) *Error {
	var p *Error
	if errors.As(err, &p) {
		return p
	}
	return &Error{Code: Internal, Message: err.Error()}
}
