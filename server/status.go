package server

import (
	"net/http"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/pilot"
)

// Settings is what the extension's 5 s poll of GET /settings gets, and what
// is pushed on its socket (with type "settings") when overrides change.
type Settings struct {
	Type             string         `json:"type,omitempty"`
	Connected        bool           `json:"connected"`
	CaptureOverrides map[string]any `json:"capture_overrides"`
}

func (s *Server) handleSettings(w http.ResponseWriter, r *http.Request) {
	s.notePilot(r)
	writeJSON(w, http.StatusOK, Settings{Connected: true, CaptureOverrides: s.control.Values()})
}

// Health is the state of the server, for GET /health and observe{what:"health"}.
type Health struct {
	Service   string          `json:"service"`
	Version   string          `json:"version"`
	UptimeS   int64           `json:"uptime_s"`
	Extension ExtensionHealth `json:"extension"`
	Clients   []string        `json:"mcp_clients,omitempty"`
	// PendingQueries counts on-demand queries waiting for the page.
	PendingQueries int `json:"pending_queries,omitempty"`
	// Page is the tab the extension tracks.
	Page *capture.Page `json:"page,omitempty"`
	// Pilot is the AI Web Pilot's state.
	Pilot pilot.Status `json:"pilot"`
	// AuditLog is the audit file this server writes.
	AuditLog string                  `json:"audit_log,omitempty"`
	Buffers  map[string]capture.Fill `json:"buffers"`
	// EventsDropped counts live events dropped for event-stream readers
	// too slow to take them, since the server started.
	EventsDropped int64 `json:"events_dropped,omitempty"`
}

// ExtensionHealth says whether the extension is talking to us.
type ExtensionHealth struct {
	Connected  bool  `json:"connected"`
	LastSeenMS int64 `json:"last_seen_ms_ago,omitempty"`
	// Sockets counts the extension sockets open now; more than one means
	// something besides the one extension speaks with its Origin.
	Sockets int `json:"sockets,omitempty"`
}

// Health reports the server's state.
func (s *Server) Health() Health {
	ok, ago := s.ExtensionConnected()
	h := Health{
		Service:        Service,
		Version:        s.cfg.Version,
		UptimeS:        int64(time.Since(s.started).Seconds()),
		Extension:      ExtensionHealth{Connected: ok, Sockets: int(s.extSockets.Load())},
		Clients:        s.clientNames(),
		Buffers:        s.store.Stats(),
		PendingQueries: s.queries.Held(),
		Pilot:          s.PilotStatus(),
		EventsDropped:  s.events.dropped.Load(),
	}
	if ago >= 0 {
		h.Extension.LastSeenMS = ago.Milliseconds()
	}
	if p, ok := s.store.Page(); ok {
		h.Page = &p
	}
	if s.auditor != nil {
		h.AuditLog = s.auditor.Path()
	}
	return h
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Health())
}
