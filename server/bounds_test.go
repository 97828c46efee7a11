package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// short are limits a test can wait out.
var short = limits{header: time.Second, read: 300 * time.Millisecond, write: 300 * time.Millisecond,
	idle: 300 * time.Millisecond, ping: time.Second, stream: 300 * time.Millisecond, status: time.Second}

func startShort(t *testing.T) (*Server, string) {
	return startServerWith(t, Config{Version: "test"}, func(s *Server) { s.limits = short })
}

// closedWithin reads c until the server closes it; false if it is still
// open after d.
func closedWithin(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

func dial(t *testing.T, base string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// slowBody starts a POST whose body never comes.
func slowBody(c net.Conn, host string) error {
	_, err := fmt.Fprintf(c, "POST /logs HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"entries\":[", host)
	return err
}

// Issue 10 #5: a trickled body and an idle keep-alive connection each
// give their connection back.
func TestSlowAndIdleConnectionsExpire(t *testing.T) {
	_, base := startShort(t)
	host := strings.TrimPrefix(base, "http://")

	slow := dial(t, base)
	if err := slowBody(slow, host); err != nil {
		t.Fatal(err)
	}
	idle := dial(t, base)
	fmt.Fprintf(idle, "GET /health HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	resp, err := http.ReadResponse(bufio.NewReader(idle), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()

	if !closedWithin(slow, 5*time.Second) {
		t.Error("a connection trickling its body is still open")
	}
	if !closedWithin(idle, 5*time.Second) {
		t.Error("an idle keep-alive connection is still open")
	}
}

// Long-lived streams outlive the plain-request limits.
func TestStreamsOutliveRequestLimits(t *testing.T) {
	s, base := startShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/events/stream?backlog=0", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ws := extSocket(t, base)
	// The worker reads (so answers pings) all along.
	go func() {
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				return
			}
			var q map[string]any
			if json.Unmarshal(b, &q) == nil && q["type"] != "ping" && q["id"] != nil {
				a, _ := json.Marshal(map[string]any{"type": "result", "id": q["id"], "result": map[string]any{"ok": true}})
				ws.Write(ctx, websocket.MessageText, a)
			}
		}
	}()
	r := sseReader{bufio.NewScanner(resp.Body)}
	deadline := time.Now().Add(4 * short.idle)
	for time.Now().Before(deadline) { // statuses keep coming past every limit
		r.until(t, "status", `"service"`)
	}
	waitReachable(t, s)
	if h := s.Health(); h.Extension.Sockets != 1 {
		t.Fatalf("sockets = %d after %v, want 1", h.Extension.Sockets, 4*short.idle)
	}
}

func extSocket(t *testing.T, base string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, strings.Replace(base, "http", "ws", 1)+"/ws/extension",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {ExtensionOrigin}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// Health counts the extension's live sockets, and a peer that stops
// answering pings is dropped while one that answers stays.
func TestExtensionSocketsCountedAndDeadOnesDropped(t *testing.T) {
	s, base := startShort(t)
	extSocket(t, base) // never reads, so never answers a ping
	live := extSocket(t, base)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	readErr := make(chan error, 1)
	go func() {
		for {
			if _, _, err := live.Read(ctx); err != nil {
				readErr <- err
				return
			}
		}
	}()
	eventually(t, "two sockets counted", func() bool { return s.Health().Extension.Sockets == 2 })
	eventually(t, "the dead socket dropped", func() bool { return s.Health().Extension.Sockets == 1 })
	select {
	case err := <-readErr:
		t.Fatalf("the live socket was dropped too: %v", err)
	default:
	}
}

// Issue 10 #3: a stalled event-stream reader holds at most subBytes, the
// rest is dropped and counted where the dashboard sees it.
func TestStalledSubscriberIsBoundedInBytes(t *testing.T) {
	h := newHub()
	sub, unsubscribe, _ := h.subscribe(false)
	big := map[string]string{"message": strings.Repeat("m", capture.MaxMessage)}
	for range 4096 {
		h.publish("entry", big)
	}
	sub.mu.Lock()
	held, frames := sub.bytes, len(sub.frames)
	sub.mu.Unlock()
	if held > subBytes || frames == 0 {
		t.Fatalf("holds %d bytes in %d frames, want at most %d", held, frames, subBytes)
	}
	if d := h.dropped.Load(); d != int64(4096-frames) || sub.dropped.Load() != d {
		t.Fatalf("dropped %d (subscriber %d), want %d", d, sub.dropped.Load(), 4096-frames)
	}
	unsubscribe()
	if h.active() {
		t.Fatal("still subscribed")
	}
}

// A reader that stops reading is cut off, not kept with its queue.
func TestStalledStreamIsDropped(t *testing.T) {
	s, base := startShort(t)
	c := dial(t, base)
	fmt.Fprintf(c, "GET /events/stream?backlog=0 HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(base, "http://"))
	eventually(t, "subscribed", s.events.active)
	msg := strings.Repeat("x", capture.MaxMessage)
	eventually(t, "the stalled reader dropped", func() bool {
		// Twice what its queue holds each time: once its socket is full, its
		// queue overflows before its write deadline, however slow the asking.
		for range 2 * subBytes / len(msg) {
			s.Store().AddLogs([]capture.LogEntry{{Level: "log", Message: msg}})
		}
		return !s.events.active()
	})
	if s.Health().EventsDropped == 0 {
		t.Fatal("nothing counted as dropped")
	}
}

// Issue 10 #5 at scale: 2,000 trickling connections held, /health still
// answers and a new MCP relay initializes.
func TestHealthAndRelayAnswerUnderHeldConnections(t *testing.T) {
	_, base := startServer(t)
	host := strings.TrimPrefix(base, "http://")
	for range 2000 {
		if err := slowBody(dial(t, base), host); err != nil {
			t.Fatal(err)
		}
	}
	if code, out := do(t, base, call{method: "GET", path: "/health"}); code != 200 || out["service"] != Service {
		t.Fatalf("health: %d %v", code, out)
	}
	c := newTestRelay(t, portOf(t, base), 0)
	c.send(t, initLine)
	if _, ok := c.answer(t, 1)["result"]; !ok {
		t.Fatal("initialize has no result")
	}
}

// The open event streams are bounded too, so subBytes bounds them all.
func TestEventStreamsAreCounted(t *testing.T) {
	s, base := startServer(t)
	host := strings.TrimPrefix(base, "http://")
	for range maxSubscribers {
		fmt.Fprintf(dial(t, base), "GET /events/stream?backlog=0 HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	}
	eventually(t, "every stream subscribed", func() bool {
		s.events.mu.Lock()
		defer s.events.mu.Unlock()
		return len(s.events.subs) == maxSubscribers
	})
	if code, out := do(t, base, call{method: "GET", path: "/events/stream"}); code != http.StatusTooManyRequests {
		t.Fatalf("stream %d: %d %v", maxSubscribers+1, code, out)
	}
}
