package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// feed puts an entry in every buffer observe reads, secrets included.
func feed(t *testing.T, base string, tag string) {
	t.Helper()
	post(t, base, "/logs", fmt.Sprintf(`{"entries":[{"level":"log","message":"%s-log"},{"level":"error","message":"%s-err","source":"https://app.test/a.js?token=SECRET1"}]}`, tag, tag))
	post(t, base, "/network", fmt.Sprintf(`{"entries":[{"method":"GET","url":"https://api.test/%s?access_token=SECRET2","status":500}]}`, tag))
	post(t, base, "/network-bodies", fmt.Sprintf(`{"bodies":[{"method":"POST","url":"https://api.test/%s","status":200,"content_type":"application/json",`+
		`"request_headers":{"Authorization":"Bearer SECRET3"},"response_body":"{\"access_token\":\"SECRET4\"}"}]}`, tag))
	post(t, base, "/websocket-events", fmt.Sprintf(`{"events":[{"event":"open","id":"%s","url":"wss://api.test/ws"},`+
		`{"event":"message","id":"%s","direction":"incoming","data":"{\"token\":\"SECRET5\"}"}]}`, tag, tag))
	post(t, base, "/actions", fmt.Sprintf(`{"actions":[{"type":"input","selector":"#password","input_type":"password","value":"SECRET6"},{"type":"click","selector":"#%s"}]}`, tag))
}

var observedModes = []string{"logs", "errors", "network", "network_bodies", "websocket_events", "websocket_status", "actions"}

// A successor on the same history directory answers every buffer read as
// its predecessor did, and the predecessor's cursors still work.
func TestHistoryRestoredByTheNextServer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "history-1")
	s1, base := startServerWith(t, Config{Version: "test", HistoryDir: dir})
	feed(t, base, "one")
	c1 := mcpClient(t, s1)
	cursor, _ := callTool(t, c1, "observe", map[string]any{"what": "errors"})
	feed(t, base, "two")
	before := map[string]string{}
	for _, m := range observedModes {
		out, _ := callTool(t, c1, "observe", map[string]any{"what": m})
		delete(out, "cursor") // the next server's cursor is its own
		before[m] = mustJSON(out)
	}
	stopServer(t, s1)

	s2, _ := startServerWith(t, Config{Version: "test", HistoryDir: dir})
	c2 := mcpClient(t, s2)
	for _, m := range observedModes {
		out, _ := callTool(t, c2, "observe", map[string]any{"what": m})
		delete(out, "cursor")
		if got := mustJSON(out); got != before[m] {
			t.Errorf("%s restored as\n%s\nwant\n%s", m, got, before[m])
		}
	}
	after, _ := callTool(t, c2, "observe", map[string]any{"what": "errors", "after": cursor["cursor"]})
	if after["count"] != float64(1) || after["cursor_reset"] != nil || !strings.Contains(mustJSON(after), "two-err") {
		t.Fatalf("the old server's cursor on the new one: %v", after)
	}
	h := s2.Health().History
	// 2 logs, 1 error, 1 request, 1 body, 2 ws events, 2 actions, twice.
	if h == nil || h.Restored != 18 || h.FromPID != os.Getpid() || h.Previous != "quit" || h.Path != dir {
		t.Fatalf("health: %+v", h)
	}
	stopServer(t, s2)
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(dir, f.Name()))
		if strings.Contains(string(b), "SECRET") {
			t.Errorf("%s holds a secret scrubbing removed: %s", f.Name(), b)
		}
	}
}

// A cursor from a server whose history was not kept is not silently
// honoured: the result says so, and holds what this server has after it.
func TestCursorFromAServerWithoutHistory(t *testing.T) {
	s1, base := startServer(t)
	feed(t, base, "old")
	out, _ := callTool(t, mcpClient(t, s1), "observe", map[string]any{"what": "logs"})
	stopServer(t, s1)

	s2, base2 := startServerWith(t, Config{Version: "test", HistoryDir: t.TempDir()})
	feed(t, base2, "new")
	c := mcpClient(t, s2)
	got, isErr := callTool(t, c, "observe", map[string]any{"what": "logs", "after": out["cursor"]})
	if isErr || got["cursor_reset"] == nil || got["count"] != float64(2) {
		t.Fatalf("an unknown cursor: %v", got)
	}
	next, _ := callTool(t, c, "observe", map[string]any{"what": "logs", "after": got["cursor"]})
	if next["cursor_reset"] != nil || next["count"] != float64(0) {
		t.Fatalf("the cursor the reset gave: %v", next)
	}
}

// What the AI cleared stays cleared for the next server.
func TestClearedBufferIsNotRestored(t *testing.T) {
	dir := t.TempDir()
	s1, base := startServerWith(t, Config{Version: "test", HistoryDir: dir})
	feed(t, base, "one")
	if out, isErr := callTool(t, mcpClient(t, s1), "configure", map[string]any{"action": "clear", "buffer": "logs"}); isErr {
		t.Fatal(out)
	}
	stopServer(t, s1)
	s2, _ := startServerWith(t, Config{Version: "test", HistoryDir: dir})
	st := s2.Store().Stats()
	if st["logs"].Count != 0 || st["errors"].Count != 1 || st["network"].Count != 1 {
		t.Fatalf("restored %v", st)
	}
}
