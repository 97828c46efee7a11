package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/extension"
	"github.com/gasoline-dev/gasoline/features/doctor"
	"github.com/gasoline-dev/gasoline/features/wait"
	"github.com/gasoline-dev/gasoline/server"
)

// isolate gives the test a fresh home and a PATH with no MCP client on it.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "PATH": "", "XDG_CONFIG_HOME": "", "CODEX_HOME": "",
		"APPDATA": "", "GASOLINE_PORT": "", "GASOLINE_AUDIT_LOG": ""} {
		t.Setenv(k, v)
	}
	return home
}

func runCLI(t *testing.T, f func(context.Context, []string, io.Writer, io.Writer) int, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := f(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestSubcommandUsage: help goes to stdout with exit 0; bad usage exits 2
// naming the problem on stderr.
func TestSubcommandUsage(t *testing.T) {
	type cmd = func(context.Context, []string, io.Writer, io.Writer) int
	cases := []struct {
		name   string
		run    cmd
		env    string // GASOLINE_PORT
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"setup help", runSetup, "", []string{"--help"}, 0, "Usage: gasoline setup", ""},
		{"setup -h", runSetup, "", []string{"-h"}, 0, "Clients: claude-code, claude-desktop, cursor, windsurf, vscode, gemini, zed, codex", ""},
		{"setup unknown flag", runSetup, "", []string{"--bogus"}, 2, "", "gasoline setup: flag provided but not defined: -bogus (see gasoline setup --help)"},
		{"setup unknown client", runSetup, "", []string{"--client", "emacs"}, 2, "", `unknown client "emacs" (one of: claude-code,`},
		{"setup port zero", runSetup, "", []string{"--port", "0"}, 2, "", `gasoline setup: --port "0" is not a port (1-65535)`},
		{"setup port not a number", runSetup, "", []string{"--port", "abc"}, 2, "", `--port "abc" is not a port (1-65535)`},
		{"setup port too big", runSetup, "", []string{"--port", "70000"}, 2, "", `--port "70000" is not a port (1-65535)`},
		{"setup bad env port", runSetup, "abc", nil, 2, "", `gasoline setup: GASOLINE_PORT="abc" is not a port (1-65535)`},
		{"setup argument", runSetup, "", []string{"cursor"}, 2, "", `unexpected argument "cursor"`},
		{"doctor help", runDoctor, "", []string{"--help"}, 0, "Usage: gasoline doctor [--json]", ""},
		{"doctor unknown flag", runDoctor, "", []string{"--verbose"}, 2, "", "gasoline doctor: flag provided but not defined: -verbose"},
		{"doctor argument", runDoctor, "", []string{"now"}, 2, "", `unexpected argument "now"`},
		{"doctor bad env port", runDoctor, "99999", nil, 2, "", `GASOLINE_PORT="99999" is not a port (1-65535)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			t.Setenv("GASOLINE_PORT", tc.env)
			code, out, errs := runCLI(t, tc.run, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errs, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, %q, %q", code, out, errs, tc.code, tc.stdout, tc.stderr)
			}
			if tc.code == 0 && errs != "" || tc.code == 2 && out != "" {
				t.Errorf("help on stderr or errors on stdout: %q / %q", out, errs)
			}
			if ents, _ := os.ReadDir(home); len(ents) != 0 {
				t.Errorf("wrote %v", ents)
			}
		})
	}
}

func TestSetupCursor(t *testing.T) {
	home := isolate(t)
	bin, err := self()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, ".cursor", "mcp.json")

	code, out, errs := runCLI(t, runSetup, "--client", "cursor", "--dry-run")
	if code != 0 || !strings.Contains(out, `+      "command": "`+bin+`",`) || !strings.Contains(out, "--- /dev/null") {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	if ents, _ := os.ReadDir(home); len(ents) != 0 {
		t.Fatalf("the dry run wrote %v", ents)
	}

	code, out, errs = runCLI(t, runSetup, "--client", "cursor")
	if code != 0 || !strings.Contains(out, "Cursor: added ("+cfg+")") || !strings.Contains(out, "In Chrome: chrome://extensions → Developer mode → Load unpacked → "+filepath.Join(home, ".gasoline", "extension")+"\n") {
		t.Fatalf("setup: exit %d\n%s%s", code, out, errs)
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(cfg)
	if err := json.Unmarshal(b, &doc); err != nil || doc.MCPServers["gasoline"].Command != bin || strings.Join(doc.MCPServers["gasoline"].Args, " ") != "--mcp" {
		t.Fatalf("config %s: %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(home, ".gasoline", "extension", "manifest.json")); err != nil {
		t.Errorf("extension not written: %v", err)
	}

	code, out, _ = runCLI(t, runSetup, "--client", "cursor", "--port", "9000")
	if code != 0 || !strings.Contains(out, "Cursor: updated") || !strings.Contains(out, "backup: "+cfg+".gasoline-backup-") ||
		!strings.Contains(out, "Wrote the extension, reporting to http://127.0.0.1:9000, to "+filepath.Join(home, ".gasoline", "extension")) {
		t.Fatalf("setup --port: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".gasoline", "extension", "sw", "address.js")); !bytes.Equal(b, extension.AddressModule("http://127.0.0.1:9000")) {
		t.Errorf("the extension setup wrote reports to:\n%s", b)
	}
	b, _ = os.ReadFile(cfg)
	if !strings.Contains(string(b), `"--port",`) || !strings.Contains(string(b), `"9000"`) {
		t.Errorf("no --port 9000 in %s", b)
	}

	code, out, _ = runCLI(t, runSetup, "--client", "cursor", "--remove")
	b, _ = os.ReadFile(cfg)
	if code != 0 || !strings.Contains(out, "Cursor: removed") || strings.Contains(string(b), "gasoline") {
		t.Fatalf("remove: exit %d\n%s\n%s", code, out, b)
	}
}

// TestSetupDetects: without --client, setup finds the installed clients.
func TestSetupDetects(t *testing.T) {
	home := isolate(t)
	code, _, errs := runCLI(t, runSetup)
	if code != 1 || !strings.Contains(errs, "no MCP client found") {
		t.Fatalf("nothing installed: exit %d, %q", code, errs)
	}
	os.MkdirAll(filepath.Join(home, ".codex"), 0o755)
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	code, out, errs := runCLI(t, runSetup)
	if code != 0 || !strings.Contains(out, "Gemini CLI: added") || !strings.Contains(out, "Codex CLI: added") || strings.Contains(out, "Cursor") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}

// TestSetupRefusesMalformed: the other clients are still set up, the
// broken file is named with its line and left alone, and the exit is 1.
func TestSetupRefusesMalformed(t *testing.T) {
	home := isolate(t)
	bad := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	src, _ := os.ReadFile("testdata/setup/cursor/malformed.json")
	os.WriteFile(bad, src, 0o644)
	code, out, errs := runCLI(t, runSetup, "--client", "cursor,zed")
	if code != 1 || !strings.Contains(errs, "Cursor: "+bad+": line 5, column 7") || !strings.Contains(out, "Zed: added") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if b, _ := os.ReadFile(bad); !bytes.Equal(b, src) {
		t.Error("the malformed file changed")
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestDoctorCLI runs the doctor on a free port, then against a real
// Gasoline server with no extension connected.
func TestDoctorCLI(t *testing.T) {
	home := isolate(t)
	port := strconv.Itoa(freePort(t))
	if code, out, errs := runCLI(t, runSetup, "--client", "cursor", "--port", port); code != 0 {
		t.Fatalf("setup: %s%s", out, errs)
	}
	code, out, errs := runCLI(t, runDoctor, "--json", "--port", port)
	var r doctor.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || r.Problems != 0 {
		t.Fatalf("doctor on a free port: exit %d, %v\n%s%s", code, err, out, errs)
	}
	checks := map[string]doctor.Check{}
	for _, c := range r.Checks {
		checks[c.Name] = c
	}
	if checks["port"].Status != doctor.OK || !strings.Contains(checks["port"].Detail, "is free") || checks["client:cursor"].Status != doctor.OK {
		t.Errorf("checks: %+v", r.Checks)
	}

	ctx, cancel := context.WithCancel(context.Background())
	ln, err := server.Listen(ctx, mustAtoi(port))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- server.New(server.Config{Version: version, Log: io.Discard, AuditLog: filepath.Join(home, "audit.jsonl")}).Serve(ctx, ln)
	}()
	defer func() { cancel(); <-done }()
	wait.Until(10*time.Second, func() bool { // the server serving; the checks below say what is missing if never
		code, out, _ = runCLI(t, runDoctor, "--port", port)
		return strings.Contains(out, "is held by Gasoline")
	})
	for _, want := range []string{"✓ server     gasoline " + version, "✗ extension  not connected",
		"fix: gasoline setup, then in Chrome: chrome://extensions → Developer mode → Load unpacked → " + filepath.Join(home, ".gasoline", "extension"),
		filepath.Join(home, "audit.jsonl") + " is writable", "1 problem."} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor against a real server lacks %q:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("exit %d with a problem, want 1", code)
	}
}

func mustAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
