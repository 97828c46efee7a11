//go:build e2e && attack

// The attacks of issue 10, against the real binary, with the figures for
// the record: `make attack` (not part of `make test`: they take minutes).
// ATTACK_SECONDS shortens the flood (default 60).
package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// memKB reads a field such as VmHWM or VmRSS of /proc/pid/status, in kB.
func memKB(t testing.TB, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// maxBatches are bodies just under the 5 MB cap, of entries at (or past)
// every size cap, one per capture endpoint.
func maxBatches() map[string][]byte {
	pad := func(n int) string { return strings.Repeat("x", n) }
	args := make([]string, 10)
	for i := range args {
		args[i] = pad(500)
	}
	entry := map[string]map[string]any{
		"/logs": {"level": "error", "kind": "exception", "message": pad(4 << 10), "stack": pad(4 << 10), "args": args,
			"source": "http://localhost:3000/" + pad(2000), "page": "http://localhost:3000/" + pad(2000)},
		"/network-bodies": {"method": "POST", "url": "http://localhost:3000/api/" + pad(2000), "status": 200,
			"request_body": pad(8 << 10), "response_body": pad(16 << 10)},
		"/websocket-events": {"event": "message", "url": "ws://localhost:3000/" + pad(2000), "direction": "incoming", "data": pad(4 << 10)},
		"/network":          {"method": "GET", "url": "http://localhost:3000/" + pad(2000), "status": 200, "duration_ms": 12},
	}
	key := map[string]string{"/logs": "entries", "/network-bodies": "bodies", "/websocket-events": "events", "/network": "entries"}
	out := map[string][]byte{}
	for path, e := range entry {
		one, _ := json.Marshal(e)
		n := min(1000, (5<<20-64)/(len(one)+1))
		items := make([]map[string]any, n)
		for i := range items {
			items[i] = e
		}
		out[path], _ = json.Marshal(map[string]any{key[path]: items})
	}
	return out
}

// stalledReader opens the event stream and never reads it.
func stalledReader(t *testing.T, port int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET /events/stream HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port)
	return c
}

// TestAttackFlood: 16 senders of maximum-size entries and 4 stalled SSE
// readers for ATTACK_SECONDS; the server's peak RSS must stay < 100 MB.
func TestAttackFlood(t *testing.T) {
	secs := 60
	if s, err := strconv.Atoi(os.Getenv("ATTACK_SECONDS")); err == nil {
		secs = s
	}
	port := freePort(t)
	owner := startOwner(t, port)
	pid := owner.Process.Pid
	var readers []net.Conn
	for range 4 {
		readers = append(readers, stalledReader(t, port))
	}
	batches := maxBatches()
	var paths []string
	for p := range batches {
		paths = append(paths, p)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	var sent, refused atomic.Int64
	var sentBytes atomic.Int64
	stop := time.Now().Add(time.Duration(secs) * time.Second)
	peak := 0
	done := make(chan struct{})
	go func() { // sample RSS while the flood runs
		defer close(done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for ; time.Now().Before(stop); <-tick.C {
			peak = max(peak, memKB(t, pid, "VmRSS"))
		}
	}()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			client := &http.Client{Timeout: 30 * time.Second}
			for n := i; time.Now().Before(stop); n++ {
				p := paths[n%len(paths)]
				resp, err := client.Post(base+p, "application/json", bytes.NewReader(batches[p]))
				if err != nil {
					refused.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					refused.Add(1)
					continue
				}
				sent.Add(1)
				sentBytes.Add(int64(len(batches[p])))
			}
		})
	}
	wg.Wait()
	<-done
	hwm := memKB(t, pid, "VmHWM")
	h := health(port)
	for _, c := range readers {
		c.Close()
	}
	// Memory back once the readers are gone: the runtime returns it to the
	// system lazily, so this samples for up to 30 s, until half is back.
	var after int
	wait.Until(30*time.Second, func() bool { after = memKB(t, pid, "VmRSS"); return after <= hwm/2 })
	t.Logf("flood %ds: %d batches stored (%.0f MB), %d failed; events dropped for stalled readers: %v",
		secs, sent.Load(), float64(sentBytes.Load())/(1<<20), refused.Load(), h["events_dropped"])
	t.Logf("server RSS: peak sampled %.1f MB, VmHWM %.1f MB, after the readers closed %.1f MB",
		float64(peak)/1024, float64(hwm)/1024, float64(after)/1024)
	if hwm >= 100<<10 {
		t.Errorf("peak RSS %.1f MB, want < 100 MB", float64(hwm)/1024)
	}
	if sent.Load() == 0 {
		t.Error("no batch was stored: the flood proves nothing")
	}
}

// TestAttackHeldConnections: 2,000 connections held idle or trickling a
// body; /health answers and a new `gasoline --mcp` initializes meanwhile.
func TestAttackHeldConnections(t *testing.T) {
	port := freePort(t)
	owner := startOwner(t, port)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range 2000 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		if i%2 == 0 { // idle after one request, kept alive
			fmt.Fprintf(c, "GET /health HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			resp.Body.Close()
		} else { // a body that never arrives
			fmt.Fprintf(c, "POST /logs HTTP/1.1\r\nHost: %s\r\nContent-Length: 5000000\r\n\r\n{", addr)
		}
	}
	t0 := time.Now()
	if h := health(port); h == nil || h["service"] != "gasoline" {
		t.Fatalf("/health with 2,000 held connections: %v", h)
	}
	healthIn := time.Since(t0)
	t0 = time.Now()
	mcpStdio(t, port, "held-agent")
	initIn := time.Since(t0)
	// The server lets them go on its own.
	freed := 0
	waitFor(t, 90*time.Second, "the held connections to be closed by the server", func() bool {
		freed = 0
		for _, c := range conns {
			c.SetReadDeadline(time.Now().Add(time.Millisecond))
			if _, err := c.Read(make([]byte, 1)); err == io.EOF || (err != nil && !isTimeout(err)) {
				freed++
			}
		}
		return freed == len(conns)
	})
	t.Logf("2,000 held connections: /health in %v, gasoline --mcp initialized in %v, all closed by the server after %v; server VmHWM %.1f MB",
		healthIn.Round(time.Millisecond), initIn.Round(time.Millisecond), time.Since(t0).Round(time.Second), float64(memKB(t, owner.Process.Pid, "VmHWM"))/1024)
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestAttackHugeRelayRequest: a 6 MB request through a relay gets an error
// for its id, wherever in the line the id is, and the next request is
// answered.
func TestAttackHugeRelayRequest(t *testing.T) {
	port := freePort(t)
	startOwner(t, port)
	cmd := exec.Command(binPath, "--mcp", "--port", strconv.Itoa(port))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	answers := make(chan map[string]any, 8)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				answers <- m
			}
		}
	}()
	next := func(id float64) map[string]any {
		select {
		case m := <-answers:
			if m["id"] != id {
				t.Fatalf("answer %v, want id %v", m, id)
			}
			return m
		case <-time.After(20 * time.Second):
			t.Fatalf("no answer for id %v", id)
		}
		return nil
	}
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"huge","version":"1"}}}`)
	next(1)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	t0 := time.Now()
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","pad":"%s"}}}`+"\n", strings.Repeat("x", 6<<20))
	huge := next(2)
	if huge["error"] == nil {
		t.Fatalf("the 6 MB request got no error: %v", huge)
	}
	// Issue 39: its id after the cut, the answer is for that id all the same.
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","pad":"%s"}},"id":4}`+"\n", strings.Repeat("x", 6<<20))
	if late := next(4); late["error"] == nil {
		t.Fatalf("the 6 MB request with its id last got no error: %v", late)
	}
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if next(3)["result"] == nil {
		t.Fatal("the request after the 6 MB ones has no result")
	}
	t.Logf("6 MB request through a relay: error %v in %v, next request answered; relay VmHWM %.1f MB",
		huge["error"], time.Since(t0).Round(time.Millisecond), float64(memKB(t, cmd.Process.Pid, "VmHWM"))/1024)
}
