package server

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// extContact is what the server knows of its link to the extension.
type extContact struct {
	lastContact atomic.Int64           // unix nanos of the extension's last request
	dropped     atomic.Int64           // events the extension reported lost from its full buffer
	sockets     atomic.Int32           // open /ws/extension sockets
	version     atomic.Pointer[string] // the extension's manifest version, from its socket's hello
}

// ConnectedWithin is how recent the extension's last contact must be for it
// to count as connected: two missed 5 s polls.
const ConnectedWithin = 12 * time.Second

// noteContact marks the extension connected whenever it calls us.
func (s *Server) noteContact(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.origins.trusted(r) {
			s.ext.lastContact.Store(time.Now().UnixNano())
		}
		next.ServeHTTP(w, r)
	})
}

// ExtensionConnected reports whether the extension called within
// ConnectedWithin, and how long ago it last did (-1 when never).
func (s *Server) ExtensionConnected() (bool, time.Duration) {
	last := s.ext.lastContact.Load()
	if last == 0 {
		return false, -1
	}
	ago := time.Since(time.Unix(0, last))
	return ago < ConnectedWithin || s.queries.Reachable(), ago
}

// reportExtension prints the extension's connection state when it changes,
// until the dashboard shows it.
func (s *Server) reportExtension(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	was := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if now, _ := s.ExtensionConnected(); now != was {
			was = now
			if now {
				fmt.Fprintln(s.cfg.Log, "gasoline: extension connected")
			} else {
				fmt.Fprintln(s.cfg.Log, "gasoline: extension disconnected")
			}
		}
	}
}
