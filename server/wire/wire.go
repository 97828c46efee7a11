// Package wire holds the JSON shapes of the HTTP API and event stream that
// the server writes and the dashboard reads, and the stream's event names.
// It is types only: it imports neither server nor tui, so both import it
// and neither keeps its own copy.
package wire

import (
	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/capturectl"
	"github.com/gasoline-dev/gasoline/features/origins"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/sessiontabs"
	"github.com/gasoline-dev/gasoline/features/sourcemap"
	"github.com/gasoline-dev/gasoline/features/streaming"
)

// Event names of GET /events/stream.
const (
	// EventStatus carries a Health, on connect and every second.
	EventStatus = "status"
	// EventOverrides carries a capturectl.View, on connect and each change.
	EventOverrides = "overrides"
	// EventEntry carries a capture.Event, one per captured entry.
	EventEntry = "entry"
	// EventPilot carries a pilot.Status when the Web Pilot changes.
	EventPilot = "pilot"
	// EventDropped carries a Dropped when a slow reader missed events.
	EventDropped = "dropped"
	// EventStreamed carries a Streamed: a notification just sent to an AI.
	EventStreamed = "streamed"
)

// EventPageLoad is the stream event of a page load measured (a
// perf.Sample with its resource rows), on connect for the newest loads and
// as each arrives.
const EventPageLoad = "pageload"

// EventApprovals is the stream event of the pilot actions waiting for
// the human (an Approvals).
const EventApprovals = "approvals"

// Approvals is the pilot approval mode and the actions that wait.
type Approvals struct {
	Mode    string             `json:"mode"`
	Pending []approval.Request `json:"pending,omitempty"`
	// Rules are the human's approval rules in force (in memory only).
	Rules []approval.Rule `json:"rules,omitempty"`
}

// RuleRevoke ends one approval rule by id, or all of them.
type RuleRevoke struct {
	ID  uint64 `json:"id,omitempty"`
	All bool   `json:"all,omitempty"`
}

// TabFree is the human freeing a tab an AI session owns
// (POST /api/tabs/free); the answer is the sessions' tabs after it.
type TabFree struct {
	Tab int `json:"tab"`
}

// Replay is a replay of the human's flow under way: which AI runs it on
// which tab, and the step it reached of how many.
type Replay struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
	Tab   int    `json:"tab,omitempty"`
	Step  int    `json:"step,omitempty"`
	Steps int    `json:"steps"`
}

// ReplaysStopped answers POST /api/replays/stop: the replays the human's x
// stopped (none under way: empty).
type ReplaysStopped struct {
	Stopped []string `json:"stopped"`
}

// AITabs is the AI sessions' tabs, by tab then agent.
type AITabs struct {
	Tabs []sessiontabs.Binding `json:"ai_tabs"`
}

// MaxAITabs bounds the bindings a status carries: every owned tab
// (sessiontabs.MaxOwned) and as many tracked ones.
const MaxAITabs = 2 * sessiontabs.MaxOwned

// ApprovalAnswer is the human's answer to one waiting action.
type ApprovalAnswer struct {
	ID      uint64 `json:"id"`
	Approve bool   `json:"approve"`
	Reason  string `json:"reason,omitempty"`
}

// EventOrigins is the stream event of the extension origins waiting for
// the human and the human's answers (an origins.View).
const EventOrigins = "origins"

// OriginAnswer is the human accepting or refusing an extension origin.
type OriginAnswer struct {
	Origin string `json:"origin"`
	Accept *bool  `json:"accept"`
}

// Decisions is what is wrong with the file of the human's decisions.
type Decisions struct {
	// Unreadable is why the file could not be read at start: until the
	// human recovers, the AI's capture changes are refused, the pilot is
	// blocked and approval is ask.
	Unreadable string `json:"unreadable,omitempty"`
	// Kept is where the unreadable file was moved.
	Kept string `json:"kept,omitempty"`
	// SaveError is why the last save failed: the decisions hold for this
	// server only.
	SaveError string `json:"save_error,omitempty"`
}

// Recover is the human's answer to an unreadable decisions file: start
// from the kept file ("kept") or from nothing ("nothing").
type Recover struct {
	From string `json:"from"`
}

// ApprovalMode sets the pilot approval mode: "ask" or "auto".
type ApprovalMode struct {
	Mode string `json:"mode"`
}

// TokenHeader carries the human token on calls to the human's API: the
// veto, the pilot block, approvals and the approval mode.
const TokenHeader = "X-Gasoline-Token"

// Health is the state of the server: GET /health, the stream's status
// event and observe{what:"health"}.
type Health struct {
	Service   string    `json:"service"`
	Version   string    `json:"version"`
	UptimeS   int64     `json:"uptime_s"`
	Extension Extension `json:"extension"`
	Clients   []string  `json:"mcp_clients,omitempty"`
	// AITabs is each AI session's own or tracked tab, by tab, at most
	// MaxAITabs; none when every session reads the human's tab.
	AITabs []sessiontabs.Binding `json:"ai_tabs,omitempty"`
	// Replays are the replays of the human's flow under way (x stops them).
	Replays []Replay `json:"replays,omitempty"`
	// PendingQueries counts on-demand queries waiting for the page.
	PendingQueries int `json:"pending_queries,omitempty"`
	// Page is the tab the extension tracks.
	Page *capture.Page `json:"page,omitempty"`
	// Pilot is the AI Web Pilot's state; nil from a server that predates it.
	Pilot *pilot.Status `json:"pilot,omitempty"`
	// Approvals is the pilot approval mode and what waits for the human.
	Approvals *Approvals `json:"approvals,omitempty"`
	// Origins lists the extension origins that wait for the human to
	// accept them; nil when none waits.
	Origins *origins.View `json:"origins,omitempty"`
	// Restored says which of the human's decisions this server restored
	// from the state file when it started (a restart or a takeover).
	Restored string `json:"restored,omitempty"`
	// History is where the capture buffers are kept on disk, and what
	// this server restored from the port's previous owner.
	History *History `json:"history,omitempty"`
	// Decisions is set while the human's decisions could not be read or
	// saved; nil when they are fine.
	Decisions *Decisions `json:"decisions,omitempty"`
	// AuditLog is the audit file this server writes.
	AuditLog string                  `json:"audit_log,omitempty"`
	Buffers  map[string]capture.Fill `json:"buffers"`
	// EventsDropped counts live events dropped for event-stream readers
	// too slow to take them, since the server started.
	EventsDropped int64 `json:"events_dropped,omitempty"`
	// SourceMaps is the source maps read for stacks, and why those that
	// could not be read were not; nil until a stack named a script.
	SourceMaps *sourcemap.Stats `json:"source_maps,omitempty"`
	// MCPClientsCut counts MCP clients cut off, since the server started,
	// for leaving more than MaxBacklog bytes of answers unread.
	MCPClientsCut int64 `json:"mcp_clients_cut,omitempty"`
	// Lost is what was lost between the pages and the server since it
	// started (gaps in the pages' sequence numbers); nil when nothing was.
	Lost *Lost `json:"lost,omitempty"`
}

// Lost counts the captured entries lost on their way from a page.
type Lost struct {
	Total int64               `json:"total"`
	ByTab []capture.LossTotal `json:"by_tab"`
	// Recent says the newest gaps as a person reads them.
	Recent []string `json:"recent"`
}

// History is the on-disk history of the capture buffers.
type History struct {
	Path string `json:"path"`
	// Restored counts the entries this server took over at start.
	Restored int `json:"restored,omitempty"`
	// Skipped counts records damaged on disk (a crash's torn tail).
	Skipped int `json:"skipped,omitempty"`
	// FromPID is the process that wrote what was restored.
	FromPID int `json:"from_pid,omitempty"`
	// Previous says how that process ended: "quit", "crashed or killed".
	Previous string `json:"previous,omitempty"`
	// Saved is when it last synced its history; At when it was restored.
	Saved string `json:"saved_at,omitempty"`
	At    string `json:"restored_at,omitempty"`
}

// Extension says whether the extension is talking to the server.
type Extension struct {
	Connected  bool  `json:"connected"`
	LastSeenMS int64 `json:"last_seen_ms_ago,omitempty"`
	// Dropped counts events the extension lost because its buffer was full
	// while this server was away (as it reported them).
	Dropped int64 `json:"dropped,omitempty"`
	// Sockets counts the extension sockets open now; more than one means
	// something besides the one extension speaks with its Origin.
	Sockets int `json:"sockets,omitempty"`
	// Version is the extension's manifest version, as its socket said.
	Version string `json:"version,omitempty"`
	// PicksRefused counts picks (POST /point) refused since the server
	// started for coming faster than a person picks.
	PicksRefused int64 `json:"picks_refused,omitempty"`
}

// Dropped is the stream's dropped event: how many events the server
// skipped for a reader that fell behind.
type Dropped struct {
	Count int64 `json:"count"`
}

// Veto is the body of POST /api/overrides/revoke and /api/overrides/allow:
// one setting, or (revoke only) all of them.
type Veto struct {
	Setting string `json:"setting,omitempty"`
	All     bool   `json:"all,omitempty"`
}

// Revoked answers POST /api/overrides/revoke.
type Revoked struct {
	Revoked []string        `json:"revoked"`
	State   capturectl.View `json:"state"`
}

// Allowed answers POST /api/overrides/allow.
type Allowed struct {
	Allowed string          `json:"allowed"`
	State   capturectl.View `json:"state"`
}

// PilotBlock is the body of POST /api/pilot/block; the answer is the
// pilot.Status that results.
type PilotBlock struct {
	Blocked *bool `json:"blocked"`
}

// Streamed is the stream's streamed event: a notifications/gasoline/event
// the server sent to the MCP client named Agent, which had turned
// streaming on.
type Streamed struct {
	Agent string `json:"agent"`
	streaming.Notification
}
