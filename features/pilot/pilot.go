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

// Status is the pilot state as every surface reports it.
type Status struct {
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

// Report records the toggle state the extension sent.
func (s *Switch) Report(enabled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enabled, s.reported = enabled, s.now()
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
	st := Status{Enabled: s.enabled, BlockedByUser: s.blocked, Source: SourceNeverConnected}
	if s.reported.IsZero() {
		return st
	}
	ago := s.now().Sub(s.reported)
	secs := ago.Round(100 * time.Millisecond).Seconds()
	st.LastPollAgo = &secs
	if linked || ago < Fresh {
		st.Source, st.ExtensionConnected = SourcePoll, true
	} else {
		st.Source = SourceStale
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
	case !st.Enabled:
		return problem.New(problem.PilotDisabled, "Enable 'AI Web Pilot' in extension popup to use this tool")
	case !st.ExtensionConnected:
		return problem.New(problem.ExtensionNotConnected, "The Gasoline extension is not connected, so the pilot cannot act. Ask the human to open Chrome with the extension enabled.")
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
