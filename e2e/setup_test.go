//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// homeEnv is this process's environment with HOME replaced.
func homeEnv(home string) []string {
	env := []string{"HOME=" + home}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_CONFIG_HOME", "CODEX_HOME", "GASOLINE_PORT", "GASOLINE_AUDIT_LOG":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// gasolineIn runs the binary with args in home and returns its exit code
// and output.
func gasolineIn(t *testing.T, home string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = homeEnv(home)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatalf("gasoline %v: %v", args, err)
	}
	return 0, string(out)
}

// doctorCheck runs gasoline doctor --json and returns one named check.
func doctorCheck(t *testing.T, home string, port int, name string) map[string]string {
	t.Helper()
	_, out := gasolineIn(t, home, "doctor", "--json", "--port", strconv.Itoa(port))
	var r struct {
		Checks []map[string]string `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	for _, c := range r.Checks {
		if c["name"] == name {
			return c
		}
	}
	t.Fatalf("doctor has no %q check:\n%s", name, out)
	return nil
}

// TestSetupCursor: in a fresh home, `gasoline setup --client cursor`
// writes a config from which an MCP client (mcp-go's, as Cursor would)
// starts Gasoline and reaches observe; the doctor reports the extension
// missing until Chromium loads the folder setup wrote, then connected.
func TestSetupCursor(t *testing.T) {
	home := t.TempDir()
	port := freePort(t)
	code, out := gasolineIn(t, home, "setup", "--client", "cursor", "--port", strconv.Itoa(port))
	if code != 0 || !strings.Contains(out, "Cursor: added") {
		t.Fatalf("setup: exit %d\n%s", code, out)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	b, err := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	entry, ok := cfg.MCPServers["gasoline"]
	want, _ := filepath.EvalSymlinks(binPath)
	if !ok || entry.Command != want || !filepath.IsAbs(entry.Command) {
		t.Fatalf("entry %+v, want the binary %s by its absolute path", entry, want)
	}

	// Start Gasoline exactly as the config says, with an empty PATH: the
	// absolute path must be enough.
	env := append(homeEnv(home), "PATH=")
	ai, err := client.NewStdioMCPClient(entry.Command, env, entry.Args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ai.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "cursor", Version: "1.0"}
	if _, err := ai.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	h := observe(t, ai, map[string]any{"what": "health"})
	if h["service"] != "gasoline" {
		t.Fatalf("observe health: %v", h)
	}

	if c := doctorCheck(t, home, port, "port"); c["status"] != "ok" || !strings.Contains(c["detail"], "held by Gasoline") {
		t.Errorf("doctor port: %v", c)
	}
	if c := doctorCheck(t, home, port, "client:cursor"); c["status"] != "ok" {
		t.Errorf("doctor cursor: %v", c)
	}
	if c := doctorCheck(t, home, port, "extension"); c["status"] != "fail" || c["detail"] != "not connected" || !strings.Contains(c["fix"], "Load unpacked") {
		t.Fatalf("doctor before Chromium: %v", c)
	}

	// Load the folder setup wrote, as it is: setup wrote this test's port
	// into it.
	ext := filepath.Join(home, ".gasoline", "extension")
	if _, err := os.Stat(filepath.Join(ext, "manifest.json")); err != nil {
		t.Fatalf("setup did not write the extension: %v", err)
	}
	launch(t, ext)
	var last map[string]string
	waitFor(t, 15*time.Second, "the doctor to see the extension", func() bool {
		last = doctorCheck(t, home, port, "extension")
		return last["status"] == "ok"
	})
	if !strings.Contains(last["detail"], "connected") {
		t.Errorf("doctor after Chromium: %v", last)
	}
}
