package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// stdioConn reads newline-delimited JSON-RPC from r and writes it to w.
type stdioConn struct {
	r   *bufio.Reader
	max int // longest line read; a longer one is skipped, not buffered
	mu  sync.Mutex
	w   io.Writer
}

func newStdioConn(r io.Reader, w io.Writer) *stdioConn {
	return &stdioConn{r: bufio.NewReaderSize(r, 64<<10), max: MaxBody, w: w}
}

// lineTooLongError is a stdin line over the cap, skipped to its end; id
// is the request's id when the line names one.
type lineTooLongError struct {
	id  json.RawMessage
	max int
}

func (e *lineTooLongError) Error() string {
	return fmt.Sprintf("message exceeds %d bytes", e.max)
}

// ReadMsg returns the next non-blank line. A line over c.max is read to its
// end in buffer-sized pieces, never held past c.max, and reported as a
// *lineTooLongError.
func (c *stdioConn) ReadMsg(ctx context.Context) ([]byte, error) {
	var line []byte
	var id *idScanner // set once the line is over the cap: it finds the id as the rest goes by
	for {
		chunk, err := c.r.ReadSlice('\n')
		switch {
		case id != nil:
			id.feed(chunk)
		case len(line)+len(chunk) > c.max+1: // +1: the newline
			id = &idScanner{}
			id.feed(line)
			id.feed(chunk)
			line = nil
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if id != nil {
			return nil, &lineTooLongError{id: id.id, max: c.max}
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line, nil
		}
		if err != nil {
			return nil, err
		}
		line = nil
	}
}

func (c *stdioConn) WriteMsg(ctx context.Context, msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.w.Write(append(msg, '\n')); err != nil {
		return err
	}
	return nil
}

// wsConn carries one JSON-RPC message per WebSocket text frame.
type wsConn struct{ c *websocket.Conn }

func (c wsConn) ReadMsg(ctx context.Context) ([]byte, error) {
	_, b, err := c.c.Read(ctx)
	return b, err
}

func (c wsConn) WriteMsg(ctx context.Context, msg []byte) error {
	return c.c.Write(ctx, websocket.MessageText, msg)
}

// memConn is one end of an in-process pipe of messages.
type memConn struct {
	in   <-chan []byte
	out  chan<- []byte
	done <-chan struct{}
}

// memPipe returns two connected ends; closing done ends both. A message
// is handed over, not queued: one the other end has not taken is still
// the writer's, counted in its session's backlog.
func memPipe(done <-chan struct{}) (a, b memConn) {
	ab, ba := make(chan []byte), make(chan []byte)
	return memConn{in: ba, out: ab, done: done}, memConn{in: ab, out: ba, done: done}
}

func (c memConn) ReadMsg(ctx context.Context) ([]byte, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c memConn) WriteMsg(ctx context.Context, msg []byte) error {
	select {
	case c.out <- msg:
		return nil
	case <-c.done:
		return io.EOF
	case <-ctx.Done():
		return ctx.Err()
	}
}

// acceptWS upgrades a long-lived WebSocket, lifting the deadlines the
// server set for a plain request first (net/http lifts them on hijack
// too; this does not rely on it): keepAlive bounds the socket instead.
func acceptWS(w http.ResponseWriter, r *http.Request, opts *websocket.AcceptOptions) (*websocket.Conn, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	c, err := websocket.Accept(w, r, opts)
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(MaxBody)
	return c, nil
}

// keepAlive pings c every period until ctx ends, then sends beat (if
// any), and cuts off a peer that does not answer within a period: that
// ends the reader, which must be running for pongs to arrive.
func keepAlive(ctx context.Context, c *websocket.Conn, period time.Duration, beat func(context.Context) error) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, period)
		err := c.Ping(pctx)
		if err == nil && beat != nil {
			err = beat(pctx)
		}
		cancel()
		if err != nil {
			c.CloseNow()
			return
		}
	}
}

// handleMCPWebSocket serves one `gasoline --mcp` relay: a WebSocket whose
// frames are the JSON-RPC messages of one MCP client session.
func (s *Server) handleMCPWebSocket(w http.ResponseWriter, r *http.Request) {
	c, err := acceptWS(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go keepAlive(ctx, c, s.limits.ping, nil)
	_ = s.serveSession(ctx, wsConn{c}, claimOf(r.URL.Query()))
	c.Close(websocket.StatusNormalClosure, "")
}
