package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// A /mcp/ws peer that asks for big answers and never reads them is cut off
// once it leaves MaxBacklog bytes unread, long before its ping would time
// out, and its session goes with it; the cut is counted in /health.
func TestUnreadMCPAnswersCutThePeer(t *testing.T) {
	s, base := startServerWith(t, Config{Version: "test"}, func(s *Server) { s.limits.ping = time.Hour })
	entries := make([]map[string]any, 500)
	for i := range entries {
		entries[i] = map[string]any{"level": "error", "message": fmt.Sprint(i, strings.Repeat("m", 4000))}
	}
	body, _ := json.Marshal(map[string]any{"entries": entries})
	if code, _ := do(t, base, call{method: "POST", path: "/logs", body: string(body), header: map[string]string{"Origin": ExtensionOrigin}}); code != 200 {
		t.Fatalf("POST /logs: %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, strings.Replace(base, "http", "ws", 1)+"/mcp/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	send := func(m string) error { return c.Write(ctx, websocket.MessageText, []byte(m)) }
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"never-reads","version":"1"}}}`)
	if _, _, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := 1; i <= 200; i++ {
		if send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","limit":500}}}`, i)) != nil {
			break // cut off already
		}
	}
	sessions := func() int { s.clients.mu.Lock(); defer s.clients.mu.Unlock(); return len(s.clients.by) }
	// 200 answers of 500 entries to write first: 30 s under -race on a loaded machine.
	if !wait.Until(30*time.Second, func() bool { return sessions() == 0 && s.Health().MCPClientsCut == 1 }) {
		t.Fatalf("after 30 s: %d sessions, %d cut", sessions(), s.Health().MCPClientsCut)
	}
}

// Calls that wait on the browser or the human take the waiting slots, so
// a queue of them never holds up a quick observe.
func TestWaitsOnOthers(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"interact","arguments":{"action":"highlight"}}}`:   true,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze","arguments":{"target":"dom"}}}`:          true,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs"}}}`:           false,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"observe","arguments":{"url_filter":"interact"}}}`: false,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"name":"analyze"}}`:                                             false,
	} {
		if waitsOnOthers([]byte(raw)) != want {
			t.Errorf("%s: want %v", raw, want)
		}
	}
}

// A peer that reads its answers may send big requests faster than they
// are handled: the server reads them as it gets to them, and cuts no one.
func TestBigRequestsInARowAreAllAnswered(t *testing.T) {
	s, base := startServerWith(t, Config{Version: "test"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, strings.Replace(base, "http", "ws", 1)+"/mcp/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"big","version":"1"}}}`))
	if _, _, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	}
	sel := strings.Repeat("#a", 2<<20) // 4 MB
	const calls = 5
	go func() {
		for i := 1; i <= calls; i++ {
			c.Write(ctx, websocket.MessageText, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"interact","arguments":{"action":"highlight","selector":%q}}}`, i, sel)))
		}
	}()
	for i := 1; i <= calls; i++ {
		if _, _, err := c.Read(ctx); err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
	}
	if n := s.Health().MCPClientsCut; n != 0 {
		t.Fatalf("%d cut", n)
	}
}
