package tui

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capturectl"
	"github.com/gasoline-dev/gasoline/server"
)

// startServer runs a real Gasoline server on 127.0.0.1:0 with its audit
// log in a temporary directory.
func startServer(t *testing.T) (*server.Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ahead := new(atomic.Int64)
	clock := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	s := server.New(server.Config{Version: "test", Port: ln.Addr().(*net.TCPAddr).Port, AuditLog: filepath.Join(dir, "audit.jsonl"),
		TokenFile: filepath.Join(dir, "human.token"), Clock: clock})
	tokenFiles.Store(ln.Addr().String(), filepath.Join(dir, "human.token"))
	clocksAhead.Store(s, ahead)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return s, ln.Addr().String()
}

// tokenFiles maps a test server's address to its human token file, which
// the dashboard reads as main tells it to.
var tokenFiles sync.Map

// clocksAhead maps a test server to how far (ns) its clock runs ahead of the
// wall clock: aiSet moves it past the AI's rate limit rather than wait.
var clocksAhead sync.Map

// attach starts a dashboard attached to the server at addr, as Run does,
// driven by the test.
func attach(t *testing.T, addr string, takeover Takeover) *driver {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tok, _ := tokenFiles.Load(addr)
	tf, _ := tok.(string)
	m, done := dial(ctx, Options{Addr: addr, Takeover: takeover, TokenFile: tf}, BatchEvery)
	t.Cleanup(func() { cancel(); <-done })
	d := newDriver(t, m)
	d.await("the stream to open", func() bool { return d.m.health != nil && d.m.conn.Phase == Attached })
	return d
}

func setting(t *testing.T, s *server.Server, name string) capturectl.SettingView {
	t.Helper()
	for _, v := range s.Overrides().Settings {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no setting %s", name)
	return capturectl.SettingView{}
}

// aiSet changes settings as the AI would, its server's clock first moved
// past the rate limit on AI changes.
func aiSet(t *testing.T, s *server.Server, changes map[string]any) {
	t.Helper()
	ahead, _ := clocksAhead.Load(s)
	ahead.(*atomic.Int64).Add(int64(capturectl.MinInterval))
	if _, err := s.Control().Set("claude-code", changes); err != nil {
		t.Fatalf("set %v: %v", changes, err)
	}
}

// select moves the Overrides pane's cursor to a setting with the arrow keys.
func selectSetting(d *driver, name string) {
	d.t.Helper()
	d.press("5")
	d.await("the capture settings", func() bool { return len(d.m.panes.overrides.settings) > 0 })
	for range 10 {
		if s, ok := d.m.panes.overrides.selected(); ok && s.Name == name {
			return
		}
		d.press("down")
	}
	d.t.Fatalf("cannot select %s:\n%s", name, d.screen())
}

func getJSON(t *testing.T, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

// x revokes the selected override through the API, X revokes all, a
// allows again; each shows in the Overrides and Audit panes.
func TestVetoKeysChangeTheServer(t *testing.T) {
	s, addr := startServer(t)
	aiSet(t, s, map[string]any{"ws_mode": "messages"})
	d := attach(t, addr, nil)

	selectSetting(d, "ws_mode")
	if l := d.line("ws_mode"); !strings.Contains(l, "messages") || !strings.Contains(l, "claude-code") || !strings.Contains(l, "AI override") {
		t.Fatalf("override not shown: %q", l)
	}
	d.press("x")
	d.await("ws_mode shown revoked", func() bool { return strings.Contains(d.line("ws_mode"), "REVOKED by you") })
	if v := setting(t, s, "ws_mode"); !v.Revoked || v.Value != nil {
		t.Fatalf("server state after x: %+v", v)
	}
	var o Overrides
	getJSON(t, "http://"+addr+"/api/overrides", &o)
	if !o.Settings[1].Revoked {
		t.Fatalf("GET /api/overrides after x: %+v", o.Settings[1])
	}
	if _, err := s.Control().Set("claude-code", map[string]any{"ws_mode": "messages"}); !strings.Contains(errString(err), "revoked_by_user") {
		t.Fatalf("the AI may still set ws_mode: %v", err)
	}
	d.press("6")
	d.await("the revocation in the Audit pane", func() bool {
		return strings.Contains(d.screen(), "revoked ws_mode: messages → lifecycle")
	})
	if l := d.line("set ws_mode"); !strings.Contains(l, "AI ▶ claude-code") {
		t.Fatalf("the AI's change is not marked in the Audit pane: %q", l)
	}

	selectSetting(d, "ws_mode")
	d.press("a")
	d.await("ws_mode allowed again", func() bool { return strings.Contains(d.line("ws_mode"), "your setting") })
	if v := setting(t, s, "ws_mode"); v.Revoked {
		t.Fatalf("server state after a: %+v", v)
	}
	aiSet(t, s, map[string]any{"ws_mode": "messages", "log_level": "all"})
	d.await("two overrides", func() bool { return strings.Contains(d.screen(), "Overrides (2)") })
	d.press("X")
	d.await("both revoked", func() bool {
		return strings.Contains(d.line("ws_mode"), "REVOKED") && strings.Contains(d.line("log_level"), "REVOKED")
	})
	for _, name := range []string{"ws_mode", "log_level"} {
		if v := setting(t, s, name); !v.Revoked || v.Value != nil {
			t.Fatalf("server state of %s after X: %+v", name, v)
		}
	}
	if v := setting(t, s, "network_bodies"); v.Revoked {
		t.Fatalf("X revoked a setting the AI never held: %+v", v)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// P blocks the Web Pilot for the AI through the API, and P again lifts it.
func TestPilotKeyBlocksThePilot(t *testing.T) {
	_, addr := startServer(t)
	var p Pilot
	if code := getJSON(t, "http://"+addr+"/pilot-status", &p); code != http.StatusOK || p.BlockedByUser {
		t.Fatalf("GET /pilot-status before P: %d %+v", code, p)
	}
	d := attach(t, addr, nil)
	d.press("P")
	d.await("the pilot shown blocked", func() bool { return strings.Contains(d.screen(), "pilot: BLOCKED by you") })
	if getJSON(t, "http://"+addr+"/pilot-status", &p); !p.BlockedByUser {
		t.Fatalf("GET /pilot-status after P: %+v", p)
	}
	d.press("6")
	d.await("the block in the Audit pane", func() bool { return strings.Contains(d.screen(), "blocked the Web Pilot") })
	d.press("P")
	d.await("the pilot shown unblocked", func() bool { return !strings.Contains(d.screen(), "BLOCKED by you") })
	if getJSON(t, "http://"+addr+"/pilot-status", &p); p.BlockedByUser {
		t.Fatalf("GET /pilot-status after the second P: %+v", p)
	}
}

// Live entries reach the panes; the header shows the server's state.
func TestStreamsFollowTheServer(t *testing.T) {
	_, addr := startServer(t)
	d := attach(t, addr, nil)
	post(t, addr, "/logs", `{"entries":[{"level":"error","message":"boom \u001b[2J cleared?"},{"level":"log","message":"fine"}]}`)
	post(t, addr, "/network", `{"entries":[{"method":"GET","url":"http://app.test/api","status":503,"duration_ms":12}]}`)
	post(t, addr, "/websocket-events", `{"events":[{"event":"open","id":"ws-9","url":"ws://app.test/live"}]}`)
	d.await("the console entries", func() bool { return strings.Contains(d.screen(), "fine") })
	if l := d.line("boom"); !strings.Contains(l, "✖ error") || strings.Contains(l, "\x1b") {
		t.Fatalf("error line: %q", l)
	}
	d.press("2")
	d.await("the request", func() bool { return strings.Contains(d.line("app.test/api"), "✖ GET        503") })
	d.press("3")
	d.await("the socket", func() bool { return strings.Contains(d.screen(), "1 open: ws-9 ws://app.test/live") })
	d.await("the buffers in the header (status comes every second)", func() bool {
		return strings.Contains(d.screen(), "logs 2/1000 · errors 1/")
	})
	if !strings.Contains(d.screen(), "attached to a running server") {
		t.Fatalf("header:\n%s", d.screen())
	}
}

func post(t *testing.T, addr, path, body string) {
	t.Helper()
	resp, err := http.Post("http://"+addr+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s", path, resp.Status)
	}
}
