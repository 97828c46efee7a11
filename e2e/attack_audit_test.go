//go:build e2e && attack

// The attacks of issue 41 on the audit log and on an MCP peer's backlog,
// against the real binary, with their figures: `make attack`.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// startAudited runs a headless server whose audit log (and token, beside
// it) is in a directory of its own, so the figures are this test's alone.
func startAudited(t *testing.T, port int) (*exec.Cmd, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	cmd := exec.Command(binPath, "--headless", "--port", strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "GASOLINE_AUDIT_LOG="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, 10*time.Second, "the server to serve", func() bool { return health(port) != nil })
	return cmd, path
}

// mcpSocket is an MCP client on /mcp/ws, initialized as name.
func mcpSocket(t *testing.T, ctx context.Context, port int, name string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(port)+"/mcp/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(64 << 20)
	t.Cleanup(func() { c.CloseNow() })
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":%q,"version":"1"}}}`, name)
	if err := c.Write(ctx, websocket.MessageText, []byte(init)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	}
	c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return c
}

// auditFiles are the log, its rotated files and the human's file.
func auditFiles(path string) []string {
	return []string{path, path + ".1", path + ".2", path + ".3", strings.TrimSuffix(path, ".jsonl") + ".human.jsonl"}
}

// TestAttackAuditFlood: the human blocks the pilot, then an AI makes 1,000
// (ATTACK_AUDIT_CALLS) refused `interact highlight` calls with a 4.5 MB
// selector. The log stays
// within its rotation bound, no line passes 4 KB, and the human's line is
// kept.
func TestAttackAuditFlood(t *testing.T) {
	port := freePort(t)
	_, path := startAudited(t, port)
	tok, err := os.ReadFile(filepath.Join(filepath.Dir(path), fmt.Sprintf("human-%d.token", port)))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(port)+"/api/pilot/block", strings.NewReader(`{"blocked":true}`))
	req.Header.Set("X-Gasoline-Token", strings.TrimSpace(string(tok)))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the human's block: %v %v", resp, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	c := mcpSocket(t, ctx, port, strings.Repeat("n", 1<<20))
	calls := 1000
	if n, err := strconv.Atoi(os.Getenv("ATTACK_AUDIT_CALLS")); err == nil {
		calls = n
	}
	// One 4.5 MB call, its id the first field, as ten digits.
	msg := []byte(fmt.Sprintf(`{"id":"0000000000","jsonrpc":"2.0","method":"tools/call","params":{"name":"interact","arguments":{"action":"highlight","selector":%q}}}`,
		strings.Repeat("#a", 9<<18)))
	// Sent without waiting for the answers, which are read meanwhile: the
	// server handles several at once.
	t0 := time.Now()
	sendErr := make(chan error, 1)
	go func() {
		for i := 1; i <= calls; i++ {
			copy(msg[7:17], fmt.Sprintf("%010d", i))
			if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
				sendErr <- fmt.Errorf("call %d: %w", i, err)
				return
			}
		}
		sendErr <- nil
	}()
	refused := 0
	for i := 1; i <= calls; i++ {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if strings.Contains(string(b), `"isError":true`) {
			refused++
		}
	}
	if err := <-sendErr; err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	var total int64
	longest, human, lines := 0, 0, 0
	for _, f := range auditFiles(path) {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		st, _ := fh.Stat()
		total += st.Size()
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines++
			longest = max(longest, len(sc.Bytes()))
			var e struct{ Source, Event string }
			if json.Unmarshal(sc.Bytes(), &e) == nil && e.Source == "human" && e.Event == "pilot_blocked" && f == auditFiles(path)[4] {
				human++
			}
		}
		fh.Close()
	}
	t.Logf("%d refused highlights with a 4.5 MB selector (client name 1 MB) in %v: %d refused; audit files %.2f MB, %d lines, longest %d bytes; the human's pilot_blocked line kept in audit.human.jsonl: %d",
		calls, took.Round(time.Millisecond), refused, float64(total)/(1<<20), lines, longest, human)
	if refused != calls || human != 1 || longest > 4096 || total > 4*10<<20 {
		t.Errorf("refused %d, human lines kept %d, longest line %d bytes, total %d bytes", refused, human, longest, total)
	}
}

// TestAttackUnreadMCPAnswers: a /mcp/ws client asks 1,000 times for 500
// logs and never reads an answer. The server cuts it at MaxBacklog and its
// RSS stays under 100 MB. Logs of 3.5 KB would make answers of about
// 1.75 MB, those of the issue; the largest log entries, the largest answer
// observe would give (7.35 MB). Both are cut at the answer's bound (1 MB).
func TestAttackUnreadMCPAnswers(t *testing.T) {
	t.Run("answers of 1.75 MB", func(t *testing.T) {
		entries := make([]map[string]any, 500)
		for i := range entries {
			entries[i] = map[string]any{"level": "error", "message": fmt.Sprint(i, " ", strings.Repeat("m", 3400))}
		}
		b, _ := json.Marshal(map[string]any{"entries": entries})
		if hwm := unreadAnswers(t, [][]byte{b}); hwm >= 100<<10 {
			t.Errorf("VmHWM %.1f MB, want < 100 MB", float64(hwm)/1024)
		}
	})
	t.Run("the largest answers", func(t *testing.T) {
		logs := maxBatches()["/logs"]
		if hwm := unreadAnswers(t, [][]byte{logs, logs}); hwm >= 100<<10 {
			t.Errorf("VmHWM %.1f MB, want < 100 MB", float64(hwm)/1024)
		}
	})
}

// unreadAnswers stores batches of logs, then runs the client that never
// reads; it returns the server's peak RSS during the attack, in kB.
func unreadAnswers(t *testing.T, batches [][]byte) int {
	port := freePort(t)
	owner, _ := startAudited(t, port)
	pid := owner.Process.Pid
	for _, b := range batches {
		resp, err := http.Post("http://127.0.0.1:"+strconv.Itoa(port)+"/logs", "application/json", strings.NewReader(string(b)))
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("POST /logs: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The size of one answer, read by a client that reads.
	probe := mcpSocket(t, ctx, port, "probe")
	probe.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","limit":500}}}`))
	_, answer, err := probe.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	probe.Close(websocket.StatusNormalClosure, "")
	before, setupHWM := memKB(t, pid, "VmRSS"), memKB(t, pid, "VmHWM")
	// The peak from here on is the attack's: the setup's (5 MB batches
	// decoded, the probe's answer) is reset.
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatalf("reset the peak RSS: %v", err)
	}

	c := mcpSocket(t, ctx, port, "never-reads")
	peak := 0
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				peak = max(peak, memKB(t, pid, "VmRSS"))
			}
		}
	}()
	t0 := time.Now()
	sent := 0
	for i := 1; i <= 1000; i++ {
		if c.Write(ctx, websocket.MessageText, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"observe","arguments":{"what":"logs","limit":500}}}`, i))) != nil {
			break
		}
		sent++
	}
	waitFor(t, 60*time.Second, "the server to cut the client off", func() bool {
		h := health(port)
		return h != nil && h["mcp_clients_cut"] == float64(1)
	})
	cutIn := time.Since(t0)
	time.Sleep(time.Second) // the handlers still running give their answers up
	close(stop)
	<-sampled
	hwm := memKB(t, pid, "VmHWM")
	after := memKB(t, pid, "VmRSS")
	tick := time.NewTicker(500 * time.Millisecond) // the memory given back is sampled, not awaited: there is no event for it
	defer tick.Stop()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end) && after > before+20<<10; <-tick.C {
		after = memKB(t, pid, "VmRSS")
	}
	t.Logf("a /mcp/ws client that never reads: %d requests sent for answers of %.2f MB each, cut after %v; server RSS before %.1f MB (peak of the setup %.1f MB), peak sampled %.1f MB, VmHWM %.1f MB, after the cut %.1f MB",
		sent, float64(len(answer))/(1<<20), cutIn.Round(time.Millisecond), float64(before)/1024, float64(setupHWM)/1024, float64(peak)/1024, float64(hwm)/1024, float64(after)/1024)
	return hwm
}
