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
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// startOwner runs a real server on a loopback port, counting the relay
// connections it accepts on /mcp/ws.
func startOwner(t *testing.T) (port int, relays *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{Version: "test"})
	s.port.Store(int32(ln.Addr().(*net.TCPAddr).Port))
	relays = new(atomic.Int32)
	h := s.Handler()
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp/ws" {
			relays.Add(1)
		}
		h.ServeHTTP(w, r)
	})}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return s.Port(), relays
}

// stdio is an MCP client's side of a relay: lines in, answers by id out.
type stdio struct {
	in  *io.PipeWriter
	out chan map[string]any
}

func startRelay(t *testing.T, r *relay, stdin *io.PipeReader, stdinW *io.PipeWriter, stdoutR *io.PipeReader) *stdio {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.run(ctx) }()
	t.Cleanup(func() {
		stdinW.Close()
		cancel()
		<-done
	})
	c := &stdio{in: stdinW, out: make(chan map[string]any, 16)}
	go func() {
		sc := bufio.NewScanner(stdoutR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				c.out <- m
			}
		}
	}()
	return c
}

func newTestRelay(t *testing.T, port, maxLine int) *stdio {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &relay{cfg: Config{Version: "test", Log: io.Discard}, port: port, client: newStdioConn(inR, outW), inflight: map[string]pending{}}
	if maxLine > 0 {
		r.client.(*stdioConn).max = maxLine
	}
	return startRelay(t, r, inR, inW, outR)
}

func (c *stdio) send(t *testing.T, line string) {
	t.Helper()
	go func() { _, _ = io.WriteString(c.in, line+"\n") }()
}

// answer waits for the message with this id, failing on any other.
func (c *stdio) answer(t *testing.T, id any) map[string]any {
	t.Helper()
	select {
	case m := <-c.out:
		if fmt.Sprint(m["id"]) != fmt.Sprint(id) {
			t.Fatalf("got an answer for id %v, want %v: %v", m["id"], id, m)
		}
		return m
	case <-time.After(30 * time.Second): // 6 MB messages under -race on a busy machine
		t.Fatalf("no answer for id %v", id)
	}
	return nil
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"relay-test","version":"1"}}}`

// bigCall is a tools/call of about n bytes.
func bigCall(id any, n int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","pad":"%s"}}}`,
		id, strings.Repeat("x", n))
}

func wantError(t *testing.T, m map[string]any, sub string) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok || !strings.Contains(fmt.Sprint(e["message"]), sub) {
		t.Fatalf("want a JSON-RPC error saying %q, got %v", sub, m)
	}
}

// A stdin line over the cap is answered with an error for its id wherever
// the line names it (null when it names none) and the relay goes on serving.
func TestRelayAnswersAnOverlongLineAndLives(t *testing.T) {
	port, relays := startOwner(t)
	c := newTestRelay(t, port, 0)
	c.send(t, initLine)
	c.answer(t, 1)
	c.send(t, bigCall(2, 6<<20))
	wantError(t, c.answer(t, 2), "exceeds")
	c.send(t, `{"jsonrpc":"2.0","params":{"pad":"`+strings.Repeat("y", 6<<20)+`"},"id":3,"method":"tools/list"}`)
	wantError(t, c.answer(t, 3), "exceeds")
	c.send(t, `{"jsonrpc":"2.0","method":"tools/call","params":{"id":9,"pad":"`+strings.Repeat("y", 6<<20)+`\",\"id\":8"},"id":"a,}\"b"}`)
	wantError(t, c.answer(t, `a,}"b`), "exceeds")
	c.send(t, `{"jsonrpc":"2.0","method":"tools/list","params":{"pad":"`+strings.Repeat("y", 6<<20)+`"}}`)
	wantError(t, c.answer(t, nil), "exceeds")
	c.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	if _, ok := c.answer(t, 4)["result"]; !ok {
		t.Fatal("tools/list after the over-long lines has no result")
	}
	if n := relays.Load(); n != 1 {
		t.Fatalf("%d relay connections, want 1: the over-long lines must not reach the server", n)
	}
}

// A request the server refuses (it closes the socket: over its read limit)
// is answered with an error and never sent again to the next connection.
func TestRelayNeverReplaysARefusedRequest(t *testing.T) {
	port, relays := startOwner(t)
	c := newTestRelay(t, port, 8<<20) // the relay lets through what the server refuses
	c.send(t, initLine)
	c.answer(t, 1)
	c.send(t, bigCall(2, 6<<20))
	wantError(t, c.answer(t, 2), "refused")
	c.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if _, ok := c.answer(t, 3)["result"]; !ok {
		t.Fatal("tools/list after the refusal has no result")
	}
	// Replayed, the request would kill the second connection too.
	if n := relays.Load(); n != 2 {
		t.Fatalf("%d relay connections, want 2 (the refused one and one more)", n)
	}
}

func TestLeadingID(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"`:    `7`,
		`{"jsonrpc":"2.0","id":"a-1","params":{"a":"`:             `"a-1"`,
		`{"jsonrpc":"2.0","params":{"a":"xxxxx`:                   ``,
		`{"params":{"id":5,"b":[1,2]},"id":{"x":1}}`:              ``,
		`{"params":{"id":5,"b":[1,2]},"id":12,"method":"tools/li`: `12`,
		`{"p":"\"id\":3","id" : "x,}\"y" }`:                       `"x,}\"y"`,
		`{"i\u0064":4,"id":-5e1}`:                                 `-5e1`,
		`{"idx":4,"ids":[1],"id":true}`:                           ``,
		`[{"id":1}]`:                                              ``,
		`not json`:                                                ``,
	} {
		if got := string(leadingID([]byte(in))); got != want {
			t.Errorf("leadingID(%.40q) = %q, want %q", in, got, want)
		}
	}
}

// endless yields n bytes of 'x' without a newline, allocating nothing.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), e.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.n -= k
	return k, nil
}

// Issue 10 #6: a line far past the cap (64 MB) is skipped without being held, and
// the next line is read.
func TestStdinLineIsCappedNotBuffered(t *testing.T) {
	in := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":9,"params":{"pad":"`), &endless{n: 64 << 20},
		strings.NewReader("\n"+`{"jsonrpc":"2.0","id":10,"method":"ping"}`+"\n"))
	c := newStdioConn(in, io.Discard)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := c.ReadMsg(context.Background())
	runtime.ReadMemStats(&after)
	var long *lineTooLongError
	if !errors.As(err, &long) || string(long.id) != "9" {
		t.Fatalf("err = %v, want a lineTooLongError for id 9", err)
	}
	// Reading up to the cap costs a few times the cap (the line grows
	// while it might still be valid); holding the line would cost 64 MB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8*MaxBody {
		t.Fatalf("allocated %d MB to skip a 64 MB line", grew>>20)
	}
	if m, err := c.ReadMsg(context.Background()); err != nil || !strings.Contains(string(m), `"id":10`) {
		t.Fatalf("next line: %q %v", m, err)
	}
}

// An id after 64 MB of the line is found without holding the line.
func TestStdinLineIDAfterTheCap(t *testing.T) {
	in := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","method":"tools/call","params":{"pad":"`), &endless{n: 64 << 20},
		strings.NewReader(`"},"id":77}`+"\n"))
	c := newStdioConn(in, io.Discard)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := c.ReadMsg(context.Background())
	runtime.ReadMemStats(&after)
	var long *lineTooLongError
	if !errors.As(err, &long) || string(long.id) != "77" {
		t.Fatalf("err = %v, want a lineTooLongError for id 77", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8*MaxBody {
		t.Fatalf("allocated %d MB to skip a 64 MB line", grew>>20)
	}
}
