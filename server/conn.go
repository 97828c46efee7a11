package server

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"

	"github.com/coder/websocket"
)

// stdioConn reads newline-delimited JSON-RPC from r and writes it to w.
type stdioConn struct {
	r  *bufio.Reader
	mu sync.Mutex
	w  io.Writer
}

func newStdioConn(r io.Reader, w io.Writer) *stdioConn {
	return &stdioConn{r: bufio.NewReaderSize(r, 64<<10), w: w}
}

func (c *stdioConn) ReadMsg(ctx context.Context) ([]byte, error) {
	for {
		line, err := c.r.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line, nil
		}
		if err != nil {
			return nil, err
		}
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

// memPipe returns two connected ends; closing done ends both.
func memPipe(done <-chan struct{}) (a, b memConn) {
	ab, ba := make(chan []byte, 64), make(chan []byte, 64)
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

// handleMCPWebSocket serves one `gasoline --mcp` relay: a WebSocket whose
// frames are the JSON-RPC messages of one MCP client session.
func (s *Server) handleMCPWebSocket(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(MaxBody)
	_ = s.ServeSession(r.Context(), wsConn{c})
	c.Close(websocket.StatusNormalClosure, "")
}
