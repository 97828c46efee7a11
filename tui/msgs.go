package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// The messages below are how the outside world reaches the model. They are
// exported so tests (and the README capture) can feed a model by hand.

// StatusMsg is the server's status: the stream's status event, every second.
type StatusMsg Health

// OverridesMsg is the state of every capture setting, on each change.
type OverridesMsg Overrides

// PilotMsg is the Web Pilot's state, when it changes.
type PilotMsg Pilot

// EntriesMsg carries captured entries, oldest first, coalesced since the
// previous one. Skipped counts entries the dashboard passed over because
// more arrived than a pane can hold.
type EntriesMsg struct {
	Logs    []capture.LogEntry
	Network []capture.NetworkEntry
	WS      []capture.WSEvent
	Actions []capture.Action
	// Bodies are request and response payloads, shown in a request's
	// detail.
	Bodies  []capture.NetworkBody
	Skipped int
}

// FatalMsg ends the dashboard: it could neither host the server nor find
// one to attach to.
type FatalMsg struct{ Err error }

// StreamedMsg is a notification the server just pushed to an AI that
// turned streaming on; the Console pane shows it marked as sent.
type StreamedMsg wire.Streamed

// DroppedMsg says the server dropped Count events for this dashboard
// because it fell behind.
type DroppedMsg struct{ Count int }

// AuditMsg carries new lines of the audit log, oldest first.
type AuditMsg struct {
	Lines []audit.Line
	// Path is the file they came from.
	Path string
}

// ConnMsg reports how the dashboard reaches the server.
type ConnMsg ConnState

// LogMsg is a line the in-process server logged (it cannot write to the
// terminal while the dashboard owns it).
type LogMsg string

// ErrMsg is a failure to show on the status line.
type ErrMsg struct{ Err error }

// batchMsg is several outside messages delivered at once, so a flood costs
// the model one update per batch instead of one per event.
type batchMsg []tea.Msg

// ConnPhase is how the dashboard currently reaches the server.
type ConnPhase int

// Connection phases.
const (
	// Connecting: no stream yet.
	Connecting ConnPhase = iota
	// Hosting: the server runs in this process.
	Hosting
	// Attached: the server runs in another process (gasoline --mcp).
	Attached
	// Reconnecting: the stream dropped; the dashboard is re-attaching or
	// taking the port over.
	Reconnecting
)

// ConnState is the connection as the header shows it.
type ConnState struct {
	Phase ConnPhase
	// Addr is host:port of the server.
	Addr string
	// TookOver is when this process took the port over from an owner that
	// went away; zero if it never did.
	TookOver time.Time
	// Err is why the stream dropped, while Reconnecting.
	Err error
}
