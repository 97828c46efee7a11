package server

import (
	"net/http"
	"time"

	"github.com/gasoline-dev/gasoline/features/origins"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// Settings is what the extension's 5 s poll of GET /settings gets, and what
// is pushed on its socket (with type "settings") when overrides change.
type Settings struct {
	Type             string         `json:"type,omitempty"`
	Connected        bool           `json:"connected"`
	CaptureOverrides map[string]any `json:"capture_overrides"`
}

func (s *Server) handleSettings(w http.ResponseWriter, r *http.Request) {
	s.pilot.note(r, s.origins.trusted(r))
	s.maps.noteOrigins(r, s.origins.trusted(r))
	writeJSON(w, http.StatusOK, Settings{Connected: true, CaptureOverrides: s.control.Values()})
}

// Health is the state of the server, for GET /health and observe{what:"health"}.
type Health = wire.Health

// ExtensionHealth says whether the extension is talking to us.
type ExtensionHealth = wire.Extension

// Health reports the server's state.
func (s *Server) Health() Health {
	ok, ago := s.ExtensionConnected()
	h := Health{
		Service:        Service,
		Version:        s.cfg.Version,
		UptimeS:        int64(time.Since(s.started).Seconds()),
		Extension:      ExtensionHealth{Connected: ok, Dropped: s.ext.dropped.Load(), Sockets: int(s.ext.sockets.Load()), PicksRefused: s.pointed.picks.Refused()},
		Clients:        s.clients.names(),
		AITabs:         s.tabs.list(),
		Replays:        s.replays.underway(),
		Buffers:        s.store.Stats(),
		PendingQueries: s.queries.Held(),
		Pilot:          new(s.PilotStatus()),
		EventsDropped:  s.events.dropped.Load(),
		MCPClientsCut:  s.clients.cut.Load(),
		Restored:       s.dec.restored,
		Approvals:      new(s.Approvals()),
		History:        s.hist.info,
		Decisions:      s.dec.view(),
	}
	h.Lost = lostHealth(s.losses)
	if v := s.origins.View(); len(v.Pending) > 0 {
		h.Origins = &origins.View{Pending: v.Pending, Evicted: v.Evicted} // the answers are the dashboard's business only
	}
	if v := s.ext.version.Load(); v != nil && ok {
		h.Extension.Version = *v
	}
	if ago >= 0 {
		h.Extension.LastSeenMS = ago.Milliseconds()
	}
	if p, ok := s.store.Page(); ok {
		h.Page = &p
	}
	if s.trail.log != nil {
		h.AuditLog = s.trail.log.Path()
	}
	if st := s.maps.Stats(); st.Maps > 0 || len(st.Failures) > 0 {
		h.SourceMaps = &st
	}
	return h
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Health())
}
