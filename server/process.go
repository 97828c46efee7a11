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
func dialMCP(ctx context.Context, port int) (msgConn, func(), error) {
	c, _, err := websocket.Dial(ctx, "ws://"+addr(port)+"/mcp/ws", nil)
	if err != nil {
		return nil, nil, err
	}
	c.SetReadLimit(MaxBody)
	return wsConn{c}, func() { c.CloseNow() }, nil
}
