package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"github.com/gasoline-dev/gasoline/features/portretry"
)

// ErrForeignServer means the port belongs to a program that is not Gasoline.
var ErrForeignServer = errors.New("port is used by another program")

// ErrAlreadyRunning means a Gasoline server already owns the port.
var ErrAlreadyRunning = errors.New("a Gasoline server already runs on this port")

// errPortBusy means the port is taken but nothing answers on it yet, as
// while another process takes it over.
var errPortBusy = errors.New("port is taken but not answering")

func addr(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// Listen binds the loopback port, or says who holds it: ErrAlreadyRunning
// for a Gasoline server, ErrForeignServer for anything else.
func Listen(ctx context.Context, port int) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr(port))
	if err == nil {
		return ln, nil
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("listen on %s: %w", addr(port), err)
	}
	switch err := probe(ctx, port); {
	case err == nil:
		return nil, fmt.Errorf("%w (%s)", ErrAlreadyRunning, addr(port))
	case errors.Is(err, ErrForeignServer):
		return nil, fmt.Errorf("%w: %s answers, but not as Gasoline; stop it or pick another --port", ErrForeignServer, addr(port))
	default:
		return nil, fmt.Errorf("%w: %s: %v", errPortBusy, addr(port), err)
	}
}

// HostOrAttach is the one way to reach Gasoline's port: it binds port and
// returns the listener (the caller serves), or, when a Gasoline server owns
// the port, calls attach and returns a nil listener once attach succeeds.
// While the port changes hands (taken but not answering, or attach
// failing) it retries on portretry.Policy; a foreign program on the port, or a
// nil attach finding a Gasoline server, ends it at once.
func HostOrAttach(ctx context.Context, port int, attach func(context.Context) error) (net.Listener, error) {
	var ln net.Listener
	err := portretry.Policy.Retry(ctx, func(ctx context.Context) (bool, error) {
		l, err := Listen(ctx, port)
		switch {
		case err == nil:
			ln = l
			return false, nil
		case errors.Is(err, ErrAlreadyRunning):
			if attach == nil {
				return false, nil
			}
			if aerr := attach(ctx); aerr != nil {
				return true, fmt.Errorf("attach to the server on %s: %w", addr(port), aerr)
			}
			return false, nil
		case errors.Is(err, errPortBusy):
			return true, err
		}
		return false, err
	})
	if err != nil {
		return nil, fmt.Errorf("reach or start a Gasoline server on %s: %w", addr(port), err)
	}
	return ln, nil
}

// probe asks GET /health whether a Gasoline server answers on port.
func probe(ctx context.Context, port int) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr(port)+"/health", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var h struct {
		Service string `json:"service"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&h); err != nil || h.Service != Service {
		return ErrForeignServer
	}
	return nil
}

// dialMCP opens a relay connection to the MCP endpoint of the server on port.
// claim, if any, is the tab the relayed session had on the server before.
func dialMCP(ctx context.Context, port int, claim tabClaim) (msgConn, func(), error) {
	c, _, err := websocket.Dial(ctx, "ws://"+addr(port)+"/mcp/ws"+claim.query(), nil)
	if err != nil {
		return nil, nil, err
	}
	c.SetReadLimit(MaxBody)
	return wsConn{c}, func() { c.CloseNow() }, nil
}
