package server

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/gasoline-dev/gasoline/server/wire"
)

// openStream opens base's /events/stream without a backlog, as the holder
// of token when it is not empty; the stream ends with the test.
func openStream(t *testing.T, base, token string) sseReader {
	t.Helper()
	return openStreamAt(t, base+"/events/stream?backlog=0", token)
}

// openStreamBacklog opens the stream with its default backlog.
func openStreamBacklog(t *testing.T, base, token string) sseReader {
	t.Helper()
	return openStreamAt(t, base+"/events/stream", token)
}

func openStreamAt(t *testing.T, url, token string) sseReader {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	if token != "" {
		req.Header.Set(TokenHeader, token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", err, resp)
	}
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	return sseReader{sc}
}

// sseReader yields (event, data) pairs from a text/event-stream.
type sseReader struct{ sc *bufio.Scanner }

func (r sseReader) next(t *testing.T) (string, string) {
	t.Helper()
	var event, data string
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		case line == "" && event != "":
			return event, data
		}
	}
	t.Fatalf("stream ended: %v", r.sc.Err())
	return "", ""
}

// until reads events until one named want arrives and has sub in its data.
func (r sseReader) until(t *testing.T, want, sub string) string {
	t.Helper()
	for {
		ev, data := r.next(t)
		if ev == want && strings.Contains(data, sub) {
			return data
		}
	}
}

func TestEventStream(t *testing.T) {
	s, base := startServer(t)
	do(t, base, call{method: "POST", path: "/logs", body: `{"entries":[{"level":"warn","message":"old-entry"}]}`})
	do(t, base, call{method: "POST", path: "/actions", body: `{"actions":[{"type":"click","selector":"#old-action"}]}`})
	do(t, base, call{method: "POST", path: "/network-bodies", body: `{"bodies":[{"method":"GET","url":"http://x/old-body","response_body":"{}"}]}`})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/events/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%v %v", err, resp)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	r := sseReader{sc}

	if ev, data := r.next(t); ev != "status" || !strings.Contains(data, `"service":"gasoline"`) {
		t.Fatalf("first event %s %s", ev, data)
	}
	if ev, data := r.next(t); ev != "overrides" || !strings.Contains(data, `"name":"ws_mode"`) {
		t.Fatalf("second event %s %s", ev, data)
	}
	r.until(t, "entry", "old-entry") // the backlog, actions and bodies (for the dashboard's details) too
	r.until(t, "entry", "#old-action")
	r.until(t, "entry", "old-body")

	do(t, base, call{method: "POST", path: "/logs", body: `{"entries":[{"level":"error","message":"live-entry"}]}`})
	if data := r.until(t, "entry", "live-entry"); !strings.Contains(data, `"kind":"logs"`) {
		t.Fatalf("entry: %s", data)
	}
	s.Control().Set("claude-code", map[string]any{"ws_mode": "messages"})
	r.until(t, "overrides", `"value":"messages"`)
	s.Control().Revoke("ws_mode")
	r.until(t, "overrides", `"revoked":true`)
	r.until(t, "status", `"uptime_s"`) // the periodic status

	if code, _ := do(t, base, call{method: "GET", path: "/events/stream?backlog=x"}); code != 400 {
		t.Fatalf("bad backlog: %d", code)
	}
}

// A local process that opens every anonymous event stream does not blind
// the human: the token-holding dashboard has slots of its own, bounded too.
func TestEventStreamKeepsTheDashboardsSlot(t *testing.T) {
	s, base := startServer(t)
	host := strings.TrimPrefix(base, "http://")
	for range maxSubscribers + 1 {
		fmt.Fprintf(dial(t, base), "GET /events/stream?backlog=0 HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	}
	eventually(t, "every anonymous stream subscribed", func() bool {
		s.events.mu.Lock()
		defer s.events.mu.Unlock()
		return len(s.events.subs) == maxSubscribers
	})
	open := func(token string) int {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/events/stream?backlog=0", nil)
		if token != "" {
			req.Header.Set(TokenHeader, token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode
	}
	if code := open("wrong"); code != http.StatusTooManyRequests {
		t.Fatalf("a wrong token got a stream: %d", code)
	}
	for i := range humanSubscribers {
		if code := open(s.HumanToken()); code != http.StatusOK {
			t.Fatalf("the dashboard's stream %d: %d", i+1, code)
		}
	}
	if code := open(s.HumanToken()); code != http.StatusTooManyRequests {
		t.Fatalf("token holders' streams are not bounded: %d", code)
	}
}

// A dashboard learns that an MCP client came or went at once, not at the
// next status tick (here an hour away): its header's client list and the
// client's first call show together.
func TestStatusFollowsMCPClients(t *testing.T) {
	_, base := startServerWith(t, Config{Version: "test"}, func(s *Server) { s.limits.status = time.Hour })
	stream := openStream(t, base, "")
	stream.until(t, wire.EventStatus, `"service"`) // the opening snapshot
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, strings.Replace(base, "http", "ws", 1)+"/mcp/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	send := func(m string) {
		if err := c.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"pusher","version":"1"}}}`)
	if _, _, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	stream.until(t, wire.EventStatus, `"mcp_clients":["pusher"]`)
	c.Close(websocket.StatusNormalClosure, "")
	for strings.Contains(stream.until(t, wire.EventStatus, `"service"`), "pusher") {
	}
}

// A burst of client changes (a client renaming itself on every request)
// costs the dashboards two statuses, the first at once and one at the end
// of the gap with the last names, not one per change.
func TestClientChangesCoalesce(t *testing.T) {
	s, _ := startServer(t)
	sub, unsubscribe, ok := s.events.subscribe(true)
	if !ok {
		t.Fatal("subscribe")
	}
	defer unsubscribe()
	statuses := func() int {
		n := 0
		for _, f := range sub.take() {
			if strings.HasPrefix(string(f), "event: "+wire.EventStatus+"\n") {
				n++
			}
			sub.release(len(f))
		}
		return n
	}
	for range 1000 {
		s.clientsChanged()
	}
	got := 0
	deadline := time.After(10 * time.Second)
	for got < 2 {
		select {
		case <-sub.wake:
			got += statuses()
		case <-deadline:
			t.Fatalf("%d statuses, want the first and the trailing one", got)
		}
	}
	s.clients.mu.Lock()
	due := s.clients.trailing
	s.clients.mu.Unlock()
	if extra := statuses(); got+extra != 2 || due {
		t.Fatalf("%d statuses for 1000 changes (one more due: %v), want 2", got+extra, due)
	}
}
