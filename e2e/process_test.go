//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startOwner runs `gasoline --headless` on port and waits until it answers.
func startOwner(t *testing.T, port int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binPath, "--headless", "--port", strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, 5*time.Second, "the owner to serve", func() bool { return health(port) != nil })
	return cmd
}

func health(port int) map[string]any {
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/health")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var h map[string]any
	if json.NewDecoder(resp.Body).Decode(&h) != nil {
		return nil
	}
	return h
}

func postLog(t *testing.T, port int, msg string) {
	t.Helper()
	body := fmt.Sprintf(`{"entries":[{"level":"error","message":%q}]}`, msg)
	resp, err := http.Post("http://127.0.0.1:"+strconv.Itoa(port)+"/logs", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("post log: %d", resp.StatusCode)
	}
}

// TestRelaysShareOneServerAndTakeOver: a headless owner, two relays that
// see the same data under their own client names, and a takeover when the
// owner is killed.
func TestRelaysShareOneServerAndTakeOver(t *testing.T) {
	port := freePort(t)
	owner := startOwner(t, port)
	a := mcpStdio(t, port, "agent-a")
	bb := mcpStdio(t, port, "agent-b")

	postLog(t, port, "shared-1")
	for name, c := range map[string]any{"a": a, "b": bb} {
		res := observe(t, c.(mcpClient), map[string]any{"what": "errors"})
		if find(entries(res), "message", "shared-1") == nil {
			t.Fatalf("relay %s does not see the owner's data: %v", name, res)
		}
	}
	clients := mustJSON(observe(t, a, map[string]any{"what": "health"})["mcp_clients"])
	if !containsAll(clients, "agent-a", "agent-b") {
		t.Fatalf("clientInfo lost through the relay: %s", clients)
	}

	killed := time.Now()
	if err := owner.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	owner.Wait()
	waitFor(t, 15*time.Second, "a relay to take the port over", func() bool {
		h := health(port)
		return h != nil
	})
	t.Logf("takeover: a server answered %v after the owner was killed", time.Since(killed).Round(time.Millisecond))

	// Both relays keep answering, on one shared server again.
	postLog(t, port, "after-takeover")
	for name, c := range map[string]mcpClient{"a": a, "b": bb} {
		var res map[string]any
		waitFor(t, 5*time.Second, "relay "+name+" to answer after the takeover", func() bool {
			out, isErr, err := tryObserve(c, map[string]any{"what": "errors"})
			res = out
			return err == nil && !isErr
		})
		if find(entries(res), "message", "after-takeover") == nil {
			t.Fatalf("relay %s after takeover: %v", name, res)
		}
	}
	waitFor(t, 5*time.Second, "both clients registered with the new owner", func() bool {
		return containsAll(mustJSON(health(port)["mcp_clients"]), "agent-a", "agent-b")
	})
}

func TestForeignProgramOnPortIsAClearError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "not gasoline") })}
	go srv.Serve(ln)
	defer srv.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	for _, args := range [][]string{{"--mcp", "--port", port}, {"--headless", "--port", port}} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, binPath, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Stdin = strings.NewReader("")
		err := cmd.Run()
		cancel()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("%v: want exit 1, got %v", args, err)
		}
		if !strings.Contains(stderr.String(), "not as Gasoline") || stdout.Len() != 0 {
			t.Fatalf("%v: stderr %q stdout %q", args, stderr.String(), stdout.String())
		}
	}
}

func TestSecondHeadlessServerRefuses(t *testing.T) {
	port := freePort(t)
	startOwner(t, port)
	out, err := exec.Command(binPath, "--headless", "--port", strconv.Itoa(port)).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "already runs") {
		t.Fatalf("second owner: %v %s", err, out)
	}
}

func TestCommandLine(t *testing.T) {
	out, err := exec.Command(binPath, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "gasoline ") {
		t.Fatalf("--version: %v %q", err, out)
	}
	help, err := exec.Command(binPath, "--help").CombinedOutput()
	if err != nil || !containsAll(string(help), "-mcp", "-port", "-headless", "extension DIR") {
		t.Fatalf("--help: %v %s", err, help)
	}
	dir := filepath.Join(t.TempDir(), "ext")
	if out, err := exec.Command(binPath, "extension", dir).CombinedOutput(); err != nil {
		t.Fatalf("extension: %v %s", err, out)
	}
	for _, f := range []string{"manifest.json", "page/inject.js", "content.js", "background.js", "ui/popup.html", "ui/options.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("extension DIR lacks %s", f)
		}
	}
	cmd := exec.Command(binPath, "--port", "70000")
	if err := cmd.Run(); err == nil {
		t.Fatal("--port 70000 accepted")
	}
}

// TestMCPStdoutCarriesOnlyJSONRPC runs `gasoline --mcp` raw: every line on
// stdout is a JSON-RPC message, and the human-readable lines go to stderr.
func TestMCPStdoutCarriesOnlyJSONRPC(t *testing.T) {
	port := freePort(t)
	cmd := exec.Command(binPath, "--mcp", "--port", strconv.Itoa(port))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"observe","arguments":{"what":"health"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"observe","arguments":{"what":"nope"}}}`,
		`not json at all`,
	}, "\n") + "\n")
	if err := cmd.Run(); err != nil {
		t.Fatalf("gasoline --mcp: %v\n%s", err, stderr.String())
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC: %q", line)
		}
		ids[string(msg.ID)] = true
	}
	for _, id := range []string{"1", "2", "3", "4"} {
		if !ids[id] {
			t.Errorf("no answer with id %s in:\n%s", id, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "serving on") {
		t.Errorf("stderr lacks the status line: %q", stderr.String())
	}
}

// TestOnDemandWithoutExtensionFailsFast: no browser at all, through the
// real binary: every on-demand mode answers extension_not_connected at once.
func TestOnDemandWithoutExtensionFailsFast(t *testing.T) {
	ai := mcpStdio(t, freePort(t), "lonely-agent")
	for _, args := range []map[string]any{
		{"target": "dom", "selector": "body"}, {"target": "page_info"}, {"target": "accessibility"},
	} {
		t0 := time.Now()
		out, isErr, err := callTool(ai, "analyze", args)
		// Waiting for a browser that is not there would end in timeout, not this code.
		if err != nil || !isErr || out["error"] != "extension_not_connected" {
			t.Errorf("%v: %v %v after %v", args, err, out, time.Since(t0))
		}
	}
}

// TestPipelinedInitializeKeepsTheAgentName: a client that sends initialize
// and a tool call without waiting is still audited under its own name.
func TestPipelinedInitializeKeepsTheAgentName(t *testing.T) {
	port := freePort(t)
	startOwner(t, port)
	cmd := exec.Command(binPath, "--mcp", "--port", strconv.Itoa(port))
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"eager-agent","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"configure","arguments":{"action":"capture","settings":{"log_level":"all"}}}}`,
	}, "\n") + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/api/overrides")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var view struct {
		Settings []struct{ Name, Agent string }
	}
	json.NewDecoder(resp.Body).Decode(&view)
	if view.Settings[0].Name != "log_level" || view.Settings[0].Agent != "eager-agent" {
		t.Fatalf("agent: %+v", view.Settings)
	}
}
