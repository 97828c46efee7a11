package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/capturectl"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// Health is GET /health and the stream's status event.
type Health = wire.Health

// Pilot is the AI Web Pilot's state (GET /pilot-status).
type Pilot = pilot.Status

// Overrides is GET /api/overrides: every capture setting, overridden or not.
type Overrides = capturectl.View

// Setting is one capture setting with the AI's override, if any.
type Setting = capturectl.SettingView

// APIError is a server's JSON problem answer, with its HTTP status.
type APIError struct {
	Status int
	// Problem is empty when the answer was not JSON (a plain-text 404).
	Problem problem.Error
}

// Error says what the server answered.
func (e *APIError) Error() string {
	if e.Problem.Code == "" {
		return fmt.Sprintf("HTTP %d", e.Status)
	}
	return e.Problem.Error()
}

// ErrNoPilot means the server has no pilot routes (it predates the Web Pilot).
var ErrNoPilot = errors.New("this server has no Web Pilot control")

// Client calls the server's HTTP API. It sends no Origin header: the server
// refuses web pages' origins, and the dashboard is not one.
type Client struct {
	// Base is the server's root URL, e.g. http://127.0.0.1:7890.
	Base string
	// HTTP does the requests; its timeout bounds every call but the stream.
	HTTP *http.Client
	// TokenFile holds the server's human token, sent on every call that
	// changes something. It is read each time: a server that took the port
	// over wrote its own.
	TokenFile string
}

// NewClient returns a client of the server at base.
func NewClient(base string) *Client {
	return &Client{Base: base, HTTP: &http.Client{Timeout: 3 * time.Second}}
}

// Health is GET /health.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	return h, c.do(ctx, http.MethodGet, "/health", nil, &h)
}

// Overrides is GET /api/overrides.
func (c *Client) Overrides(ctx context.Context) (Overrides, error) {
	var o Overrides
	return o, c.do(ctx, http.MethodGet, "/api/overrides", nil, &o)
}

// Revoke takes the setting back from the AI at once.
func (c *Client) Revoke(ctx context.Context, setting string) (Overrides, error) {
	var a wire.Revoked
	err := c.do(ctx, http.MethodPost, "/api/overrides/revoke", wire.Veto{Setting: setting}, &a)
	return a.State, err
}

// RevokeAll takes every active override back from the AI and names the
// settings it revoked.
func (c *Client) RevokeAll(ctx context.Context) ([]string, Overrides, error) {
	var a wire.Revoked
	err := c.do(ctx, http.MethodPost, "/api/overrides/revoke", wire.Veto{All: true}, &a)
	return a.Revoked, a.State, err
}

// Allow lifts the veto on a revoked setting.
func (c *Client) Allow(ctx context.Context, setting string) (Overrides, error) {
	var a wire.Allowed
	err := c.do(ctx, http.MethodPost, "/api/overrides/allow", wire.Veto{Setting: setting}, &a)
	return a.State, err
}

// PilotStatus is GET /pilot-status; ErrNoPilot when the route is missing.
func (c *Client) PilotStatus(ctx context.Context) (Pilot, error) {
	var p Pilot
	return p, noPilot(c.do(ctx, http.MethodGet, "/pilot-status", nil, &p))
}

// BlockPilot blocks (or unblocks) the Web Pilot for the AI.
func (c *Client) BlockPilot(ctx context.Context, blocked bool) (Pilot, error) {
	var p Pilot
	return p, noPilot(c.do(ctx, http.MethodPost, "/api/pilot/block", wire.PilotBlock{Blocked: &blocked}, &p))
}

func noPilot(err error) error {
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound && ae.Problem.Code == "" {
		return ErrNoPilot
	}
	return err
}

// sign puts the human token on req, when the client has a token file.
func (c *Client) sign(req *http.Request) error {
	if c.TokenFile == "" {
		return nil
	}
	tok, err := os.ReadFile(c.TokenFile)
	if err != nil {
		return fmt.Errorf("read the human token: %w", err)
	}
	req.Header.Set(wire.TokenHeader, strings.TrimSpace(string(tok)))
	return nil
}

// do sends one JSON request and decodes the JSON answer into out.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet {
		if err := c.sign(req); err != nil {
			return err
		}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		ae := &APIError{Status: resp.StatusCode}
		_ = json.Unmarshal(b, &ae.Problem) // a plain-text 404 leaves it empty
		return ae
	}
	return json.Unmarshal(b, out)
}
