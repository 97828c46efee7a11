// Package pilot tracks the AI Web Pilot switch: the human turns it on in the
// extension popup, the extension reports it, and the server only ever
// learns the state — nothing here can turn it on. The human can also block
// the pilot from the dashboard, which the server enforces on its own.
package pilot

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// Fresh is how recent the extension's last report must be to be trusted.
const Fresh = 3 * time.Second

// Freshness of the reported state.
const (
	SourcePoll           = "extension_poll"
	SourceStale          = "stale"
	SourceNeverConnected = "never_connected"
)

// States of the switch as the server knows it: what the extension reports
// while it is in contact, unknown otherwise (never its last report).
const (
	StateOn      = "on"
	StateOff     = "off"
	StateUnknown = "unknown"
)

// Status is the pilot state as every surface reports it. Enabled is true
// only while the extension is in contact and reports the switch on.
type Status struct {
	State              string   `json:"state"`
	Enabled            bool     `json:"enabled"`
	Source             string   `json:"source"`
	ExtensionConnected bool     `json:"extension_connected"`
	LastPollAgo        *float64 `json:"last_poll_ago,omitempty"` // seconds
	BlockedByUser      bool     `json:"blocked_by_user"`
}

// Switch holds what the extension last reported and the human's block.
// Safe for concurrent use.
type Switch struct {
	mu       sync.RWMutex
	enabled  bool
	reported time.Time
	blocked  bool
	now      func() time.Time
}

// New returns a switch that has heard nothing yet.
func New(now func() time.Time) *Switch {
	if now == nil {
		now = time.Now
	}
	return &Switch{now: now}
}

// Report records the toggle state the extension sent, and says whether it
// is a flip: a change from the last report, or a first report of "on".
func (s *Switch) Report(enabled bool) (flipped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	flipped = enabled != s.enabled
	s.enabled, s.reported = enabled, s.now()
	return flipped
}

// Touch records that the extension is in contact without a new state.
func (s *Switch) Touch() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.reported.IsZero() {
		s.reported = s.now()
	}
}

// SetBlocked is the human's block from the dashboard.
func (s *Switch) SetBlocked(blocked bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocked = blocked
}

// Status reports the state; linked means the extension's push socket is up,
// which keeps the last report current between polls.
func (s *Switch) Status(linked bool) Status {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := Status{State: StateUnknown, BlockedByUser: s.blocked, Source: SourceNeverConnected}
	if s.reported.IsZero() {
		return st
	}
	ago := s.now().Sub(s.reported)
	secs := ago.Round(100 * time.Millisecond).Seconds()
	st.LastPollAgo = &secs
	if !linked && ago >= Fresh {
		st.Source = SourceStale
		return st
	}
	st.Source, st.ExtensionConnected, st.Enabled, st.State = SourcePoll, true, s.enabled, StateOff
	if s.enabled {
		st.State = StateOn
	}
	return st
}

// Check says whether the AI may act now: the human enabled the pilot in the
// popup and has not blocked it from the dashboard.
func (s *Switch) Check(linked bool) error {
	st := s.Status(linked)
	switch {
	case st.BlockedByUser:
		return problem.New(problem.PilotDisabled, "The human blocked the AI Web Pilot from the Gasoline dashboard. Ask them to unblock it (key P) if you need it.")
	case st.Source == SourceStale:
		return problem.New(problem.ExtensionNotConnected, "The Gasoline extension is not connected, so the pilot cannot act. Ask the human to open Chrome with the extension enabled.")
	case !st.Enabled:
		return problem.New(problem.PilotDisabled, "Enable 'AI Web Pilot' in extension popup to use this tool")
	}
	return nil
}

// ScriptDigest is how a script appears in the audit log: its sha256 and at
// most its first 200 characters.
func ScriptDigest(script string) (sum, head string) {
	h := sha256.Sum256([]byte(script))
	r := []rune(script)
	if len(r) > 200 {
		r = r[:200]
	}
	return hex.EncodeToString(h[:]), string(r)
}

// Limits of pilot actions.
const (
	DefaultHighlightMS = 5000
	MaxHighlightMS     = 60000
	DefaultScriptMS    = 5000
	MaxScriptMS        = 60000
	MaxScriptBytes     = 64 << 10
	MaxSnapshotName    = 50
	actionTimeout      = 10 * time.Second
	scriptReplyGrace   = 3 * time.Second
)

// Actions are the names an Action may have.
var Actions = append(append(append([]string{"highlight", "save_state", "load_state", "list_states", "delete_state", "execute_js"}, Acts...), "replay"), TabActions...)

// Action is one thing the AI asks the pilot to do, as the extension gets it.
type Action struct {
	Name         string `json:"action"`
	Selector     string `json:"selector,omitempty"`
	DurationMS   int    `json:"duration_ms,omitempty"`
	SnapshotName string `json:"snapshot_name,omitempty"`
	IncludeURL   *bool  `json:"include_url,omitempty"`
	Script       string `json:"script,omitempty"`
	TimeoutMS    int    `json:"timeout_ms,omitempty"`
	Act
}

// Check validates an action and fills in its defaults.
func (a *Action) Check() error {
	switch a.Name {
	case "highlight":
		if a.Selector == "" {
			return problem.New(problem.InvalidParam, "selector is required for highlight")
		}
		if a.DurationMS == 0 {
			a.DurationMS = DefaultHighlightMS
		}
	case "save_state", "load_state", "delete_state":
		if a.SnapshotName == "" {
			return problem.New(problem.InvalidParam, "snapshot_name is required for %s", a.Name)
		}
		if len([]rune(a.SnapshotName)) > MaxSnapshotName {
			return problem.New(problem.InvalidParam, "snapshot_name is longer than %d characters", MaxSnapshotName)
		}
	case "execute_js":
		if a.Script == "" {
			return problem.New(problem.InvalidParam, "script is required for execute_js")
		}
		if len(a.Script) > MaxScriptBytes {
			return problem.New(problem.InvalidParam, "script is longer than %d bytes", MaxScriptBytes)
		}
		if a.TimeoutMS == 0 {
			a.TimeoutMS = DefaultScriptMS
		}
	case "list_states", "replay", "close_tab":
	case "new_tab":
		return a.checkAct()
	default:
		if IsAct(a.Name) {
			return a.checkAct()
		}
		return problem.New(problem.InvalidParam, "unknown pilot action %q", a.Name)
	}
	return nil
}

// Timeout is how long the server waits for the page: a script's own
// timeout plus time to report it, else a fixed bound.
func (a *Action) Timeout() time.Duration {
	switch {
	case a.Name == "execute_js":
		return time.Duration(a.TimeoutMS)*time.Millisecond + scriptReplyGrace
	case a.Name == "wait_for":
		return time.Duration(a.TimeoutMS)*time.Millisecond + actReplyGrace
	case IsAct(a.Name), a.Name == "new_tab", a.Name == "close_tab":
		return actTimeout
	}
	return actionTimeout
}
