//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// bidi is a minimal WebDriver BiDi client: JSON commands over one
// WebSocket, answers matched to commands by id. Events are not needed by
// the tests and are dropped.
type bidi struct {
	c      *websocket.Conn
	mu     sync.Mutex
	nextID int
	wait   map[int]chan bidiAnswer
	done   chan struct{}
	err    error // why the read loop ended
}

type bidiAnswer struct {
	ID      int             `json:"id"`
	Type    string          `json:"type"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
}

// dialBiDi connects to a BiDi endpoint (ws://127.0.0.1:PORT/session); the
// caller then creates the session (newSession).
func dialBiDi(ctx context.Context, url string) (*bidi, error) {
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	c.SetReadLimit(32 << 20)
	b := &bidi{c: c, wait: make(map[int]chan bidiAnswer), done: make(chan struct{})}
	go b.read()
	return b, nil
}

// newSession creates the BiDi session (one per browser).
func (b *bidi) newSession(ctx context.Context) error {
	_, err := b.call(ctx, "session.new", map[string]any{"capabilities": map[string]any{}})
	return err
}

func (b *bidi) read() {
	defer close(b.done)
	for {
		_, data, err := b.c.Read(context.Background())
		if err != nil {
			b.err = err
			return
		}
		var a bidiAnswer
		if json.Unmarshal(data, &a) != nil || (a.Type != "success" && a.Type != "error") {
			continue // an event
		}
		b.mu.Lock()
		ch := b.wait[a.ID]
		delete(b.wait, a.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- a
		}
	}
}

// call sends one command and returns its result.
func (b *bidi) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan bidiAnswer, 1)
	b.wait[id] = ch
	b.mu.Unlock()
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := b.c.Write(ctx, websocket.MessageText, msg); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case a := <-ch:
		if a.Type == "error" {
			return nil, fmt.Errorf("%s: %s: %s", method, a.Error, a.Message)
		}
		return a.Result, nil
	case <-b.done:
		return nil, fmt.Errorf("%s: connection closed: %w", method, b.err)
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.wait, id)
		b.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// evaluate runs expression in a browsing context's page realm, awaiting a
// promise, and decodes its value (primitives, arrays and plain objects).
func (b *bidi) evaluate(ctx context.Context, browsingContext, expression string) (any, error) {
	raw, err := b.call(ctx, "script.evaluate", map[string]any{
		"expression":   expression,
		"target":       map[string]any{"context": browsingContext},
		"awaitPromise": true,
	})
	if err != nil {
		return nil, err
	}
	var r struct {
		Type             string          `json:"type"`
		Result           json.RawMessage `json:"result"`
		ExceptionDetails struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	if r.Type == "exception" {
		return nil, errors.New("script exception: " + r.ExceptionDetails.Text)
	}
	return remoteValue(r.Result)
}

// remoteValue turns a BiDi RemoteValue into plain Go values.
func remoteValue(raw json.RawMessage) (any, error) {
	var v struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	switch v.Type {
	case "undefined", "null":
		return nil, nil
	case "string", "boolean":
		var x any
		err := json.Unmarshal(v.Value, &x)
		return x, err
	case "number":
		var f float64
		if json.Unmarshal(v.Value, &f) != nil {
			var s string // NaN, Infinity, -0
			json.Unmarshal(v.Value, &s)
			return s, nil
		}
		return f, nil
	case "array":
		var items []json.RawMessage
		if err := json.Unmarshal(v.Value, &items); err != nil {
			return nil, err
		}
		out := make([]any, len(items))
		for i, it := range items {
			x, err := remoteValue(it)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case "object":
		var pairs [][2]json.RawMessage
		if err := json.Unmarshal(v.Value, &pairs); err != nil {
			return nil, err
		}
		out := make(map[string]any, len(pairs))
		for _, p := range pairs {
			var k string
			if err := json.Unmarshal(p[0], &k); err != nil {
				return nil, fmt.Errorf("object key: %w", err)
			}
			x, err := remoteValue(p[1])
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported remote value type %q", v.Type)
}

// close ends the session and the connection.
func (b *bidi) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	b.call(ctx, "session.end", map[string]any{})
	b.c.CloseNow()
	<-b.done
}
