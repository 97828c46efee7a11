package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// startServer runs a real server on 127.0.0.1:0 for the test's lifetime.
func startServer(t testing.TB) (*Server, string) {
	t.Helper()
	return startServerWith(t, Config{Version: "test"})
}

var stops sync.Map // *Server → func(), so a test can stop a server early

// startServerWith runs a server with cfg; tune adjusts it before it serves.
func startServerWith(t testing.TB, cfg Config, tune ...func(*Server)) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Port == 0 {
		cfg.Port = ln.Addr().(*net.TCPAddr).Port // as main names the port it serves
	}
	s := New(cfg)
	for _, f := range tune {
		f(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
	}
	stops.Store(s, stop)
	t.Cleanup(stop)
	return s, "http://" + ln.Addr().String()
}

// stopServer shuts a server down gracefully and waits for it.
func stopServer(t testing.TB, s *Server) {
	t.Helper()
	f, _ := stops.Load(s)
	f.(func())()
}

type call struct {
	method, path, body string
	header             map[string]string
	host               string
}

func do(t testing.TB, base string, c call) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	if c.host != "" {
		req.Host = c.host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &out)
	if v := resp.Header.Get("Access-Control-Allow-Origin"); v != "" {
		t.Errorf("%s %s: sent Access-Control-Allow-Origin %q", c.method, c.path, v)
	}
	return resp.StatusCode, out
}

func TestGuardRefusesWebOriginsAndForeignHosts(t *testing.T) {
	_, base := startServer(t)
	port := strings.TrimPrefix(base, "http://127.0.0.1:")
	body := `{"entries":[{"level":"error","message":"forged"}]}`
	cases := []struct {
		name string
		c    call
		want int
	}{
		{"no origin", call{method: "POST", path: "/logs", body: body}, 200},
		{"extension origin", call{method: "POST", path: "/logs", body: body, header: map[string]string{"Origin": ExtensionOrigin}}, 200},
		{"localhost host", call{method: "GET", path: "/health", host: "localhost:" + port}, 200},
		{"web page", call{method: "POST", path: "/logs", body: body, header: map[string]string{"Origin": "http://127.0.0.1:3000"}}, 403},
		{"https page", call{method: "GET", path: "/health", header: map[string]string{"Origin": "https://evil.example"}}, 403},
		{"null origin", call{method: "GET", path: "/settings", header: map[string]string{"Origin": "null"}}, 403},
		{"other extension", call{method: "GET", path: "/settings", header: map[string]string{"Origin": "chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh"}}, 403},
		{"extension id prefix", call{method: "GET", path: "/settings", header: map[string]string{"Origin": ExtensionOrigin + ".evil.com"}}, 403},
		{"preflight", call{method: "OPTIONS", path: "/logs", header: map[string]string{"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}}, 403},
		{"dns rebinding", call{method: "GET", path: "/health", host: "evil.example:" + port}, 403},
		{"rebinding lookalike", call{method: "GET", path: "/health", host: "127.0.0.1.evil.com:" + port}, 403},
		{"wrong port", call{method: "GET", path: "/health", host: "127.0.0.1:1"}, 403},
		{"queries without origin", call{method: "GET", path: "/pending-queries"}, 403},
		{"queries from the extension", call{method: "GET", path: "/pending-queries", header: map[string]string{"Origin": ExtensionOrigin}}, 200},
		{"results without origin", call{method: "POST", path: "/query-results", body: `{"results":[]}`}, 403},
		{"extension socket without origin", call{method: "GET", path: "/ws/extension", header: map[string]string{"Connection": "Upgrade", "Upgrade": "websocket"}}, 403},
		{"pilot report without origin", call{method: "GET", path: "/settings?pilot=true"}, 403},
		{"settings without origin", call{method: "GET", path: "/settings"}, 200},
		{"mcp websocket from a page", call{method: "GET", path: "/mcp/ws", header: map[string]string{"Origin": "http://evil.example", "Connection": "Upgrade", "Upgrade": "websocket"}}, 403},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, out := do(t, base, c.c)
			if got != c.want {
				t.Fatalf("status %d, want %d (%v)", got, c.want, out)
			}
			want := "forbidden"
			if c.name == "other extension" {
				want = "origin_not_accepted" // it waits for the human (origins_test.go)
			}
			if got == 403 && out["error"] != want {
				t.Fatalf("body %v", out)
			}
		})
	}
}

func TestIngestRejectsBadInputAndKeepsServing(t *testing.T) {
	s, base := startServer(t)
	cases := []struct {
		name, path, body string
		want             int
		msg              string
	}{
		{"malformed", "/logs", `{"entries":[{"level":"log",`, 400, "malformed JSON"},
		{"syntax", "/logs", `{"entries":[}`, 400, "malformed JSON at byte"},
		{"empty", "/logs", ``, 400, "empty body"},
		{"not an object", "/logs", `[1,2]`, 400, "body: want"},
		{"missing key", "/logs", `{"events":[]}`, 400, `missing "entries"`},
		{"wrong type list", "/logs", `{"entries":"x"}`, 400, "/entries: want []capture.LogEntry, got JSON string"},
		{"wrong shape outside the entries", "/logs", `{"entries":[],"events":"x"}`, 400, "/events: want"},
		{"trailing", "/actions", `{"actions":[]} {}`, 400, "after top-level value"},
		{"duplicate key", "/logs", `{"entries":[],"entries":[]}`, 400, "duplicate"},
		{"oversized", "/network-bodies", `{"bodies":[{"method":"GET","url":"u","response_body":"` + strings.Repeat("x", MaxBody) + `"}]}`, 413, "exceeds"},
		{"batch too big", "/logs", `{"entries":[` + strings.Repeat(`{"level":"log","message":"m"},`, 1000) + `{"level":"log","message":"m"}]}`, 413, "batch of 1001"},
		{"bad page", "/page", `{"tab":1}`, 400, "url is required"},
		{"get on ingest", "/logs", ``, 405, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := "POST"
			if c.want == 405 {
				method = "GET"
			}
			got, out := do(t, base, call{method: method, path: c.path, body: c.body})
			if got != c.want {
				t.Fatalf("status %d, want %d (%v)", got, c.want, out)
			}
			if c.msg != "" && !strings.Contains(fmt.Sprint(out["message"]), c.msg) {
				t.Fatalf("message %q does not name %q", out["message"], c.msg)
			}
		})
	}
	// A split surrogate pair or a stray byte is replaced, not refused.
	if got, out := do(t, base, call{method: "POST", path: "/logs", body: "{\"entries\":[{\"level\":\"log\",\"message\":\"a\xff \\ud83d\"}]}"}); got != 200 {
		t.Fatalf("invalid UTF-8: %d %v", got, out)
	}
	if m := s.Store().Logs(capture.Query{}).Entries[0].Message; m != "a\ufffd \ufffd" {
		t.Fatalf("stored %q", m)
	}
	s.Store().Clear()

	// One bad entry costs nothing else in its batch, and the server still serves.
	got, out := do(t, base, call{method: "POST", path: "/logs", body: `{"entries":[{"level":"log","message":"kept"},{"level":"shout","message":"x"}]}`})
	if got != 200 || out["accepted"] != float64(1) || len(out["rejected"].([]any)) != 1 {
		t.Fatalf("partial batch: %d %v", got, out)
	}
	if r := s.Store().Logs(capture.Query{}); len(r.Entries) != 1 || r.Entries[0].Message != "kept" {
		t.Fatalf("store: %+v", r.Entries)
	}
}

func TestSettingsMarksExtensionConnected(t *testing.T) {
	s, base := startServer(t)
	if ok, _ := s.ExtensionConnected(); ok {
		t.Fatal("connected before any contact")
	}
	got, out := do(t, base, call{method: "GET", path: "/settings", header: map[string]string{"Origin": ExtensionOrigin}})
	if got != 200 || out["connected"] != true {
		t.Fatalf("%d %v", got, out)
	}
	if ok, _ := s.ExtensionConnected(); !ok {
		t.Fatal("not connected after a poll")
	}
	_, h := do(t, base, call{method: "GET", path: "/health"})
	if h["service"] != "gasoline" || h["extension"].(map[string]any)["connected"] != true {
		t.Fatalf("health: %v", h)
	}
}

// A client that opens a connection and never sends a request must not stop
// the server from shutting down.
func TestShutdownWithAStuckClient(t *testing.T) {
	s, base := startServer(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stopServer(t, s) // fails the test if Serve returns an error
}
