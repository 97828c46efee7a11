package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/history"
)

// The worker says a tab's document went away: its open sockets are closed
// in websocket_status, with the reason, and stay closed for the next owner
// of the port (the close is an event in the history).
func TestSocketsOfAGonePageAreClosed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "history")
	s1, base := startServerWith(t, Config{Version: "test", HistoryDir: dir})
	now := time.Now().UnixMilli()
	post(t, base, "/websocket-events", fmt.Sprintf(`{"events":[{"event":"open","id":"old","url":"wss://api.test/ws","tab":5,"ts":%d},`+
		`{"event":"open","id":"elsewhere","url":"wss://api.test/ws","tab":9,"ts":%d}]}`, now-2000, now-2000))
	for _, bad := range []string{`{"tab":5,"reason":"bored","ts":1}`, `{"reason":"reload"}`, `[]`} {
		if code, out := do(t, base, call{method: "POST", path: "/page-left", body: bad, header: map[string]string{"Origin": ExtensionOrigin}}); code != 400 {
			t.Errorf("%s: %d %v", bad, code, out)
		}
	}
	_, out := do(t, base, call{method: "POST", path: "/page-left", body: fmt.Sprintf(`{"tab":5,"reason":"reload","ts":%d}`, now-1000),
		header: map[string]string{"Origin": ExtensionOrigin}})
	if out["closed"] != float64(1) {
		t.Fatalf("page-left: %v", out)
	}
	post(t, base, "/websocket-events", fmt.Sprintf(`{"events":[{"event":"open","id":"new","url":"wss://api.test/ws","tab":5,"ts":%d}]}`, now))

	check := func(s *Server, who string) {
		t.Helper()
		st, _ := callTool(t, mcpClient(t, s), "observe", map[string]any{"what": "websocket_status"})
		state := map[string]map[string]any{}
		for _, c := range st["connections"].([]any) {
			m := c.(map[string]any)
			state[m["id"].(string)] = m
		}
		if c := state["old"]; c["state"] != "closed" || c["code"] != float64(1001) || c["reason"] != "the page was reloaded" {
			t.Errorf("%s: the reloaded page's socket: %v", who, c)
		}
		if state["elsewhere"]["state"] != "open" || state["new"]["state"] != "open" {
			t.Errorf("%s: %v", who, st)
		}
	}
	check(s1, "the server told")
	stopServer(t, s1)
	s2, _ := startServerWith(t, Config{Version: "test", HistoryDir: dir})
	check(s2, "the next owner")
}

// A server that took the port over learns the tracked tab from the
// worker's hello on its socket, before the tab changes again (a reload of
// the same page is not reported as a new page).
func TestHelloNamesTheTrackedTab(t *testing.T) {
	s, base := startServer(t)
	ai := mcpClient(t, s)
	if out, _ := callTool(t, ai, "observe", map[string]any{"what": "page"}); out["tracked"] != false {
		t.Fatalf("before the hello: %v", out)
	}
	connectWorkerHello(t, base, map[string]any{"type": "hello", "version": "0.1.0", "pilot": false,
		"page": map[string]any{"tab": 412, "url": "http://localhost:3000/checkout", "title": "Checkout", "active": true, "ts": time.Now().UnixMilli()}},
		func(map[string]any) map[string]any { return nil })
	eventually(t, "the page stored", func() bool { _, ok := s.store.Page(); return ok })
	out, _ := callTool(t, ai, "observe", map[string]any{"what": "page"})
	if out["tab"] != float64(412) || out["url"] != "http://localhost:3000/checkout" || out["title"] != "Checkout" {
		t.Fatalf("observe page: %v", out)
	}
}

// The port's next owner names the tracked tab from the history directory
// before the extension says anything, in a file only the user can read.
func TestNextOwnerKnowsTheTrackedTab(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "history")
	s1, base := startServerWith(t, Config{Version: "test", HistoryDir: dir})
	post(t, base, "/page", `{"tab":7,"url":"http://app.test/a","title":"A","active":true}`)
	post(t, base, "/page", `{"tab":8,"url":"http://app.test/b?token=SECRET","title":"B","active":true}`)
	stopServer(t, s1)
	if fi, err := os.Stat(filepath.Join(dir, history.PageFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v %v", history.PageFile, fi, err)
	}
	s2, _ := startServerWith(t, Config{Version: "test", HistoryDir: dir})
	out, _ := callTool(t, mcpClient(t, s2), "observe", map[string]any{"what": "page"})
	if u, _ := out["url"].(string); out["tab"] != float64(8) || !strings.HasPrefix(u, "http://app.test/b?token=") || out["title"] != "B" {
		t.Fatalf("the next owner's page: %v", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, history.PageFile)); strings.Contains(string(b), "SECRET") {
		t.Fatalf("%s keeps what capture scrubs: %s", history.PageFile, b)
	}
}

// The worker's socket carries the same report as a page_left frame.
func TestPageLeftFrameClosesTheSockets(t *testing.T) {
	s, base := startServer(t)
	now := time.Now().UnixMilli()
	post(t, base, "/websocket-events", fmt.Sprintf(`{"events":[{"event":"open","id":"gone","url":"wss://api.test/ws","tab":5,"ts":%d}]}`, now-2000))
	w := connectWorkerHello(t, base, map[string]any{"type": "hello", "version": "0.1.0"}, func(map[string]any) map[string]any { return nil })
	frame := fmt.Sprintf(`{"type":"page_left","tab":5,"reason":"tab_closed","ts":%d}`, now)
	if err := w.c.Write(context.Background(), websocket.MessageText, []byte(frame)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the page's socket closed with the tab", func() bool {
		c := s.store.WSConnections(capture.Query{ConnectionID: "gone"})
		return len(c) == 1 && c[0].State == "closed" && c[0].Reason == "the tab was closed" && c[0].Code == capture.CodeGoingAway
	})
}

// Issue 58 row 11: after two reloads, observe page dates the page from
// its current document; a closed tab or another tab leaves it as it is.
func TestReloadDatesThePage(t *testing.T) {
	s, base := startServer(t)
	ai := mcpClient(t, s)
	post(t, base, "/page", `{"tab":5,"url":"http://app.test/","title":"Shop","active":true,"ts":1700000000000}`)
	for i, tc := range []struct {
		left, want string
	}{
		{`{"tab":5,"reason":"reload","ts":1700000005000}`, "2023-11-14T22:13:25.000Z"},
		{`{"tab":5,"reason":"reload","ts":1700000009000}`, "2023-11-14T22:13:29.000Z"},
		{`{"tab":6,"reason":"reload","ts":1700000010000}`, "2023-11-14T22:13:29.000Z"},
		{`{"tab":5,"reason":"tab_closed","ts":1700000011000}`, "2023-11-14T22:13:29.000Z"},
	} {
		post(t, base, "/page-left", tc.left)
		if out, _ := callTool(t, ai, "observe", map[string]any{"what": "page"}); out["ts"] != tc.want || out["url"] != "http://app.test/" {
			t.Fatalf("%d: %v, want ts %s", i, out, tc.want)
		}
	}
}
