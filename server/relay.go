package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/sync/errgroup"

	"github.com/gasoline-dev/gasoline/features/portretry"
)

// reinitID marks the initialize a relay replays to a new server, and
// restreamID the streaming settings; their answers are for the relay, not
// the client.
const (
	reinitID   = `"gasoline-relay-reinit"`
	restreamID = `"gasoline-relay-restream"`
)

// RunMCP serves one MCP client on stdin/stdout until stdin ends. If a
// Gasoline server already owns port, every JSON-RPC message is relayed to it
// both ways untouched (clientInfo included); otherwise the server runs in
// this process. When a relayed-to server goes away, RunMCP takes the port
// over (or relays to whoever did), replays the client's initialize and the
// requests still unanswered, and carries on.
func RunMCP(ctx context.Context, cfg Config, port int, stdin io.Reader, stdout io.Writer) error {
	r := &relay{cfg: cfg, port: port, client: newStdioConn(stdin, stdout), inflight: map[string]pending{}}
	return r.run(ctx)
}

type relay struct {
	cfg    Config
	port   int
	client msgConn

	mu          sync.Mutex
	init        []byte // the client's initialize request
	initialized bool   // the client sent notifications/initialized
	inflight    map[string]pending
	next        int
	// streaming merges the arguments of the client's successful
	// configure{action:"streaming"} calls: a setting of its session, which
	// a new server must be given again.
	streaming map[string]any
	tab       tabClaim // the session's own or tracked tab, for the next server
	agent     string   // the client's name, as its initialize gave it
}

type pending struct {
	n     int
	msg   []byte
	env   envelope // msg, as peek read it
	sends int      // servers it was sent to
}

// maxSends bounds how many servers one request is sent to: a request that
// was in flight each time a server went away is answered with an error
// rather than sent on for ever.
const maxSends = 2

type backend struct {
	conn  msgConn
	close func()
}

// envelope is what the relay and an MCP session read of a JSON-RPC message
// they pass on, decoded once by peek. MCP's params, arguments and results
// are objects.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		// The client's name: once, in initialize's params (older clients),
		// or in every request's _meta (newer ones).
		ClientInfo clientInfo `json:"clientInfo"`
		Meta       struct {
			ClientInfo clientInfo `json:"io.modelcontextprotocol/clientInfo"`
		} `json:"_meta"`
	} `json:"params"`
	Result *struct {
		IsError bool `json:"isError"`
	} `json:"result"`
}

type clientInfo struct {
	Name string `json:"name"`
}

// peek reads m's envelope; false when m is not a JSON-RPC object.
func peek(m []byte) (envelope, bool) {
	var e envelope
	return e, json.Unmarshal(m, &e) == nil
}

func (r *relay) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)

	fromClient := make(chan []byte)
	clientDone := make(chan struct{})
	go func() { // stdin cannot be interrupted, so this reader is not in g
		defer close(clientDone)
		for {
			m, err := r.client.ReadMsg(ctx)
			var long *lineTooLongError
			if errors.As(err, &long) {
				// Refused here, so no server ever sees it; the session lives.
				msg := fmt.Sprintf("request exceeds %d bytes; it was not run", long.max)
				_ = r.client.WriteMsg(ctx, rpcError(long.id, codeInvalidRequest, msg))
				continue
			}
			if err != nil {
				return
			}
			select {
			case fromClient <- m:
			case <-ctx.Done():
				return
			}
		}
	}()

	var runErr error
	failures := 0 // backends in a row that answered nothing, for portretry.Policy
	for first := true; ; first = false {
		if failures > 0 && !portretry.Policy.Sleep(gctx, failures-1) {
			break
		}
		be, err := r.connect(gctx, g)
		if err != nil {
			runErr = err
			break
		}
		if !first {
			if err := r.replay(gctx, be); err != nil {
				be.close()
				failures++
				continue
			}
		}
		clientEnded, answered := r.pump(gctx, be, fromClient, clientDone)
		be.close()
		if clientEnded || gctx.Err() != nil {
			break
		}
		if answered {
			failures = 0
		} else {
			failures++
		}
		fmt.Fprintln(r.cfg.Log, "gasoline: the server went away; taking over")
	}
	cancel()
	return errors.Join(runErr, g.Wait())
}

// connect becomes the server (in-process backend) or relays to the one that
// owns the port, retrying while the port changes hands.
func (r *relay) connect(ctx context.Context, g *errgroup.Group) (backend, error) {
	var be backend
	ln, err := HostOrAttach(ctx, r.port, func(ctx context.Context) error {
		c, closeFn, err := dialMCP(ctx, r.port, r.claim())
		if err == nil {
			be = backend{conn: c, close: closeFn}
		}
		return err
	})
	switch {
	case err != nil:
		return backend{}, err
	case ln == nil:
		fmt.Fprintf(r.cfg.Log, "gasoline: relaying MCP to the server on %s\n", addr(r.port))
		return be, nil
	}
	srv := New(r.cfg)
	fmt.Fprintf(r.cfg.Log, "gasoline: serving on http://%s (MCP over stdio)\n", ln.Addr())
	g.Go(func() error { return srv.Serve(ctx, ln) })
	client, end := memPipe(ctx.Done())
	claim := r.claim()
	g.Go(func() error { _ = srv.serveSession(ctx, end, claim); return nil })
	return backend{conn: client, close: func() {}}, nil
}

// pump moves messages until the backend fails or the client ends
// (clientEnded); answered says the backend answered the client at all.
func (r *relay) pump(ctx context.Context, be backend, fromClient <-chan []byte, clientDone <-chan struct{}) (clientEnded, answered bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fromBackend := make(chan []byte)
	backendDone := make(chan error, 1) // why the backend ended
	go func() {
		for {
			m, err := be.conn.ReadMsg(ctx)
			if err != nil {
				backendDone <- err
				return
			}
			select {
			case fromBackend <- m:
			case <-ctx.Done():
				backendDone <- ctx.Err()
				return
			}
		}
	}()
	var drainBy <-chan time.Time // set once the client has hung up
	for {
		select {
		case m := <-fromClient:
			r.noteOut(m)
			if be.conn.WriteMsg(ctx, m) != nil {
				// The read side learns why (a refusal arrives as a close frame).
				select {
				case err := <-backendDone:
					r.settleRefused(ctx, err)
				case <-time.After(time.Second):
				}
				return false, answered
			}
		case m := <-fromBackend:
			if r.noteIn(m) {
				answered = true
				if r.client.WriteMsg(ctx, m) != nil {
					return true, answered
				}
			}
			if drainBy != nil && r.pending() == 0 {
				return true, answered
			}
		case err := <-backendDone:
			r.settleRefused(ctx, err)
			return drainBy != nil, answered
		case <-clientDone:
			// Answer what the client already asked before leaving.
			if r.pending() == 0 {
				return true, answered
			}
			clientDone, drainBy = nil, time.After(drainWithin)
		case <-drainBy:
			return true, answered
		case <-ctx.Done():
			return true, answered
		}
	}
}

// settleRefused answers, with an error, the request a server refused by
// closing the socket over its size (the largest one in flight), and forgets
// it: replayed, it would only be refused again, forever.
func (r *relay) settleRefused(ctx context.Context, err error) {
	if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		return
	}
	r.mu.Lock()
	var id string
	size := -1
	for k, p := range r.inflight {
		if len(p.msg) > size {
			id, size = k, len(p.msg)
		}
	}
	delete(r.inflight, id)
	r.mu.Unlock()
	if size < 0 {
		return
	}
	msg := fmt.Sprintf("the Gasoline server refused this %d-byte request as too large; it was not run", size)
	_ = r.client.WriteMsg(ctx, rpcError(json.RawMessage(id), codeInvalidRequest, msg))
}

// codeServerLost is the error (in JSON-RPC's range for implementations)
// for a request given up after maxSends servers went away under it.
const codeServerLost = -32001

// codeInvalidRequest is JSON-RPC's error code for a request that cannot be
// run as sent.
const codeInvalidRequest = -32600

// rpcError is a JSON-RPC error answer; a missing id becomes null.
func rpcError(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	type rpcErr struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcErr          `json:"error"`
	}{"2.0", id, rpcErr{code, msg}})
	return b
}

// drainWithin bounds how long a relay whose client hung up waits for the
// answers to requests it had already forwarded.
const drainWithin = 5 * time.Second

func (r *relay) pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.inflight)
}

// noteOut remembers what a new server would need replayed.
func (r *relay) noteOut(m []byte) {
	e, ok := peek(m)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case e.Method == "initialize":
		r.init = slices.Clone(m)
		r.agent = e.Params.ClientInfo.Name
	case e.Method == "notifications/initialized":
		r.initialized = true
	}
	if len(e.ID) > 0 && e.Method != "" {
		r.next++
		r.inflight[string(e.ID)] = pending{r.next, m, e, 1}
	}
}

// noteIn settles an answered request; false means the message is the
// relay's own and must not reach the client.
func (r *relay) noteIn(m []byte) bool {
	e, ok := peek(m)
	if !ok || e.Method != "" || len(e.ID) == 0 {
		return true
	}
	if string(e.ID) == reinitID || string(e.ID) == restreamID {
		return false
	}
	r.mu.Lock()
	if p, ok := r.inflight[string(e.ID)]; ok {
		r.noteStreaming(p.env, e)
		r.noteTab(p.env, e, m)
	}
	delete(r.inflight, string(e.ID))
	r.mu.Unlock()
	return true
}

// noteStreaming keeps what a successful configure{action:"streaming"} set;
// the caller holds mu.
func (r *relay) noteStreaming(call, answer envelope) {
	if call.Params.Name != "configure" || call.Params.Arguments["action"] != "streaming" ||
		answer.Result == nil || answer.Result.IsError {
		return
	}
	if r.streaming == nil {
		r.streaming = map[string]any{}
	}
	maps.Copy(r.streaming, call.Params.Arguments)
}

// replay re-establishes the client's session on a new server: initialize
// (answered to the relay), initialized, then every unanswered request.
func (r *relay) replay(ctx context.Context, be backend) error {
	r.mu.Lock()
	init, initialized := r.init, r.initialized
	var restream []byte
	if r.streaming != nil {
		restream, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(restreamID), "method": "tools/call",
			"params": map[string]any{"name": "configure", "arguments": r.streaming}})
	}
	var todo, lost []pending
	for id, p := range r.inflight {
		if p.sends >= maxSends {
			lost = append(lost, p)
			delete(r.inflight, id)
			continue
		}
		p.sends++
		r.inflight[id] = p
		todo = append(todo, p)
	}
	r.mu.Unlock()
	for _, p := range lost {
		_ = r.client.WriteMsg(ctx, rpcError(p.env.ID, codeServerLost, "the Gasoline server went away twice while running this request; it was not sent again"))
	}
	slices.SortFunc(todo, func(a, b pending) int { return a.n - b.n })

	initPending := slices.ContainsFunc(todo, func(p pending) bool { return string(p.msg) == string(init) })
	if init != nil && !initPending {
		var req map[string]json.RawMessage
		if err := json.Unmarshal(init, &req); err != nil {
			return err
		}
		req["id"] = json.RawMessage(reinitID)
		b, _ := json.Marshal(req)
		if err := be.conn.WriteMsg(ctx, b); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		for {
			m, err := be.conn.ReadMsg(wctx)
			if err != nil {
				return fmt.Errorf("replay initialize: %w", err)
			}
			if !r.noteIn(m) {
				break
			}
			_ = r.client.WriteMsg(ctx, m)
		}
		if initialized {
			if err := be.conn.WriteMsg(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
				return err
			}
		}
	}
	if restream != nil {
		if err := be.conn.WriteMsg(ctx, restream); err != nil {
			return err
		}
	}
	for _, p := range todo {
		if err := be.conn.WriteMsg(ctx, p.msg); err != nil {
			return err
		}
	}
	return nil
}
