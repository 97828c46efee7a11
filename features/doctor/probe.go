package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrFree means nothing listens on the port.
var ErrFree = errors.New("nothing listens on the port")

// ErrForeign means the port answers, but not as Gasoline.
var ErrForeign = errors.New("another program answers on the port")

// Health is the part of a Gasoline server's GET /health the doctor reads.
type Health struct {
	Service   string `json:"service"`
	Version   string `json:"version"`
	Extension struct {
		Connected bool `json:"connected"`
		// Version is the extension's manifest version, when the server
		// reports it.
		Version    string `json:"version,omitempty"`
		LastSeenMS int64  `json:"last_seen_ms_ago,omitempty"`
	} `json:"extension"`
	Pilot struct {
		State         string `json:"state,omitempty"` // on, off, unknown
		Enabled       bool   `json:"enabled"`
		BlockedByUser bool   `json:"blocked_by_user"`
	} `json:"pilot"`
	AuditLog string `json:"audit_log,omitempty"`
	// Clients are the MCP clients connected now, by name: the dashboard's
	// header names the same ones.
	Clients []string `json:"mcp_clients,omitempty"`
}

// Server is what the doctor asks the process on the port.
type Server interface {
	// Health returns the server's health, ErrFree when nothing listens,
	// or an error wrapping ErrForeign when another program answers.
	Health(ctx context.Context) (Health, error)
}

// HTTPServer asks GET /health at Addr (host:port), as a relay does.
type HTTPServer struct {
	Addr   string
	Client *http.Client // nil: a client with a 2 s timeout
}

// Health implements Server.
func (s HTTPServer) Health(ctx context.Context) (Health, error) {
	c := s.Client
	if c == nil {
		c = &http.Client{Timeout: 2 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.Addr+"/health", nil)
	if err != nil {
		return Health{}, err
	}
	resp, err := c.Do(req)
	if errors.Is(err, syscall.ECONNREFUSED) {
		return Health{}, ErrFree
	}
	if err != nil {
		// Something took the connection but did not answer HTTP.
		return Health{}, fmt.Errorf("%w (%v)", ErrForeign, err)
	}
	defer resp.Body.Close()
	var h Health
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&h); err != nil || h.Service != "gasoline" {
		return Health{}, fmt.Errorf("%w (GET /health: HTTP %d, not Gasoline's answer)", ErrForeign, resp.StatusCode)
	}
	return h, nil
}

// Writable reports whether the audit log at path can be appended to (or
// created), without changing it: an existing file is opened for append,
// a missing one is tried as a temporary file in the nearest folder.
func Writable(path string) error {
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
		return f.Close()
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	dir := filepath.Dir(path)
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	f, err := os.CreateTemp(dir, ".gasoline-doctor-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}
