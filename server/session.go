package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/server/wire"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/sync/semaphore"
)

// msgConn carries whole JSON-RPC messages: a stdio line, a WebSocket frame
// or an in-process channel send.
type msgConn interface {
	ReadMsg(ctx context.Context) ([]byte, error)
	WriteMsg(ctx context.Context, msg []byte) error
}

// mcpClients are the MCP clients this server serves over its own
// transports (session.go).
type mcpClients struct {
	mu  sync.Mutex
	by  map[string]*session
	cut atomic.Int64 // clients cut off for not reading their answers
	// pushedAt is the last status clientsChanged pushed; trailing says one
	// more is due at the end of its gap.
	pushedAt time.Time
	trailing bool
}

// session is one MCP client of this server, whichever transport it came
// over, with its own clientInfo (the agent name in the audit log).
type session struct {
	id     string
	notifs chan mcp.JSONRPCNotification
	ready  atomic.Bool
	// onNamed runs when the initialized client's name becomes known or
	// changes (an initialize, or the first request of a client that sends
	// its name with each one).
	onNamed func()

	mu   sync.RWMutex
	info mcp.Implementation
	caps mcp.ClientCapabilities
}

var (
	_ server.ClientSession         = (*session)(nil)
	_ server.SessionWithClientInfo = (*session)(nil)
)

func newSession() *session {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &session{id: "gasoline-" + hex.EncodeToString(b), notifs: make(chan mcp.JSONRPCNotification, 64)}
}

func (c *session) Initialize() {
	if c.ready.CompareAndSwap(false, true) && c.GetClientInfo().Name != "" {
		c.named()
	}
}

func (c *session) Initialized() bool                                   { return c.ready.Load() }
func (c *session) NotificationChannel() chan<- mcp.JSONRPCNotification { return c.notifs }
func (c *session) SessionID() string                                   { return c.id }

func (c *session) GetClientInfo() mcp.Implementation {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.info
}

func (c *session) SetClientInfo(info mcp.Implementation) {
	c.mu.Lock()
	changed := c.info.Name != info.Name
	c.info = info
	c.mu.Unlock()
	if changed && c.ready.Load() {
		c.named()
	}
}

func (c *session) named() {
	if c.onNamed != nil {
		c.onNamed()
	}
}

func (c *session) GetClientCapabilities() mcp.ClientCapabilities {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.caps
}

func (c *session) SetClientCapabilities(caps mcp.ClientCapabilities) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.caps = caps
}

// ServeSession runs one MCP client over conn until it closes or ctx ends.
// Requests are handled concurrently, so a call that waits on the browser
// or the human never blocks a quick one behind it; what the client has
// the server hold is bounded in bytes (MaxBacklog).
func (s *Server) ServeSession(ctx context.Context, conn msgConn) error {
	return s.serveSession(ctx, conn, tabClaim{})
}

// serveSession is ServeSession for a session a relay brings back after a
// takeover, with the tab it had (resume.go).
func (s *Server) serveSession(ctx context.Context, conn msgConn, claim tabClaim) error {
	sess := newSession()
	sess.onNamed = s.clientsChanged
	if err := s.mcp.RegisterSession(ctx, sess); err != nil {
		return err
	}
	s.clients.add(sess)
	human := 0
	if pg, ok := s.store.Page(); ok {
		human = pg.TabID
	}
	s.tabs.Resume(sess.id, claim.Agent, claim.Tab, claim.Owned, human)
	serving := ctx // the server's (or its request's): done when the server stops
	defer func() {
		s.mcp.UnregisterSession(ctx, sess.id)
		s.clients.remove(sess.id)
		if sess.Initialized() {
			s.clientsChanged()
		}
		why := approval.EndSessionEnded
		if serving.Err() != nil {
			why = approval.EndServerStopped
		}
		s.approvals.rules.EndSession(sess.id, why)
		s.tabs.End(sess.id) // its tabs are free
	}()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wmu sync.Mutex
	// backlog is the bytes of answers encoded and not yet written; requests
	// the bytes of requests read and not yet handled.
	var backlog atomic.Int64
	requests := semaphore.NewWeighted(MaxBacklog)
	var cut sync.Once
	over := func(n int64) bool {
		held := backlog.Add(n)
		if held > MaxBacklog && held > n {
			cut.Do(func() { s.cutPeer(sess, held, cancel) })
			return true
		}
		return false
	}
	write := func(v any) {
		if ctx.Err() != nil {
			return
		}
		b, err := json.Marshal(v)
		if err != nil {
			return
		}
		n := int64(len(b))
		defer backlog.Add(-n)
		if over(n) {
			return
		}
		wmu.Lock()
		defer wmu.Unlock()
		if conn.WriteMsg(ctx, b) != nil {
			cancel()
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case n := <-sess.notifs:
				write(n)
			}
		}
	})
	hctx := s.mcp.WithContext(ctx, sess)
	// Handlers take a slot: an answer is built in one, so a peer's answers
	// are built a few at a time, not all at once however many it asks for.
	// Calls that wait on the browser or the human have slots of their own,
	// so they never hold up a quick call.
	quick, waiting := make(chan struct{}, quickSlots), make(chan struct{}, waitingSlots)
	var err error
	for {
		var raw []byte
		raw, err = conn.ReadMsg(ctx)
		if err != nil {
			break
		}
		// initialize sets who the client is; nothing may overtake it.
		if isInitialize(raw) {
			if resp := s.mcp.HandleMessage(hctx, raw); resp != nil {
				write(resp)
			}
			continue
		}
		// Requests waiting for a slot are held to MaxBacklog bytes by
		// reading no more until some are handled.
		n := min(int64(len(raw)), MaxBacklog)
		if err = requests.Acquire(ctx, n); err != nil {
			break
		}
		wg.Go(func() {
			slot := quick
			if waitsOnOthers(raw) {
				slot = waiting
			}
			select {
			case slot <- struct{}{}:
			case <-ctx.Done():
				requests.Release(n)
				return
			}
			resp := s.mcp.HandleMessage(hctx, raw)
			<-slot
			raw = nil
			requests.Release(n)
			if resp != nil {
				write(resp)
			}
		})
	}
	cancel()
	wg.Wait()
	return err
}

// MaxBacklog is how many bytes of answers one MCP peer may leave unread
// (the one being written included) before it is cut off: a peer that sends
// requests and never reads the answers would otherwise have the server
// hold every one of them. One answer larger than this is still written.
// Its requests not yet handled are held to as many bytes: past them, the
// server reads no more of its requests until some are handled.
const MaxBacklog = 8 << 20

// Handler slots of one session: calls that build an answer from what is
// stored, and calls that wait on the browser or the human (the pilot's
// queue holds 16).
const (
	quickSlots   = 2
	waitingSlots = 16
)

// waitsOnOthers reports whether a request is a tool call that waits on the
// browser or the human: interact and analyze.
func waitsOnOthers(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`"interact"`)) && !bytes.Contains(raw, []byte(`"analyze"`)) {
		return false
	}
	m, ok := peek(raw)
	return ok && m.Method == "tools/call" && (m.Params.Name == "interact" || m.Params.Name == "analyze")
}

// cutPeer ends a session whose peer does not read: cancelling its context
// closes the connection (a write in progress ends with it), the handlers
// still running give up their answers, and the session's memory goes with
// them. It is said on the log, with the client's name.
func (s *Server) cutPeer(sess *session, held int64, cancel context.CancelFunc) {
	s.clients.cut.Add(1)
	cancel()
	fmt.Fprintf(s.cfg.Log, "gasoline: cut off MCP client %q: %.1f MB of answers unread\n",
		audit.Cap(sess.GetClientInfo().Name), float64(held)/(1<<20))
	// The answers it held are garbage now; give the memory back at once
	// rather than when the runtime next scavenges.
	go debug.FreeOSMemory()
}

// add counts sess among the connected clients until remove.
func (c *mcpClients) add(sess *session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.by[sess.id] = sess
}

func (c *mcpClients) remove(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.by, id)
}

// statusPushGap spaces the status pushes clientsChanged makes: a client
// that renames itself on every request costs the dashboards one status
// each gap, not one each request.
const statusPushGap = 100 * time.Millisecond

// clientsChanged sends the dashboards the status at once when an MCP
// client comes, goes or renames itself, rather than at the next tick: the
// header's client list and the AI's first call then show together. Within
// statusPushGap of the last push, one more follows at the gap's end.
func (s *Server) clientsChanged() {
	if !s.events.active() {
		return
	}
	c := &s.clients
	c.mu.Lock()
	wait := time.Until(c.pushedAt.Add(statusPushGap))
	if wait > 0 {
		if !c.trailing {
			c.trailing = true
			time.AfterFunc(wait, func() {
				c.mu.Lock()
				c.trailing = false
				c.mu.Unlock()
				s.clientsChanged()
			})
		}
		c.mu.Unlock()
		return
	}
	c.pushedAt = time.Now()
	c.mu.Unlock()
	s.events.publish(wire.EventStatus, s.Health())
}

// names lists the clientInfo names of the connected MCP clients.
func (c *mcpClients) names() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var names []string
	for _, sess := range c.by {
		if !sess.Initialized() {
			continue
		}
		n := audit.Cap(sess.GetClientInfo().Name) // the client wrote it
		if n == "" {
			n = "unknown"
		}
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func isInitialize(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`"initialize"`)) {
		return false
	}
	e, ok := peek(raw)
	return ok && e.Method == "initialize"
}
