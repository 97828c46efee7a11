package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/extension"
)

// gasoline runs the real entry point in-process, bounded in time: a case
// that wrongly starts a server ends with the context and fails on its exit
// code rather than hanging.
func gasoline(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestCLI: help and version go to stdout with exit 0; a usage error, a bad
// port from --port or GASOLINE_PORT for the server and for every command
// that takes a port, and an unknown command go to stderr with exit 2,
// naming what was wrong.
func TestCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ext") // never written: every case here fails first
	cases := []struct {
		name   string
		env    string // GASOLINE_PORT
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"--help", "", []string{"--help"}, 0, "Usage:\n  gasoline [flags]", ""},
		{"-h", "", []string{"-h"}, 0, "  --headless                   run the server without the dashboard\n", ""},
		{"help", "", []string{"help"}, 0, "  gasoline help [COMMAND]", ""},
		{"help despite a bad env port", "abc", []string{"help"}, 0, "Usage:", ""},
		{"help setup", "", []string{"help", "setup"}, 0, "Usage: gasoline setup [--client NAME]", ""},
		{"help doctor", "", []string{"help", "doctor"}, 0, "Usage: gasoline doctor", ""},
		{"help extension", "", []string{"help", "extension"}, 0, "Usage: gasoline extension DIR [--port N] [--browser chrome|firefox]", ""},
		{"extension --help", "", []string{"extension", "--help"}, 0, "Usage: gasoline extension DIR", ""},
		{"help version", "", []string{"help", "version"}, 0, "  gasoline version ", ""},
		{"help unknown", "", []string{"help", "serve"}, 2, "", `gasoline help: no command "serve"`},
		{"version", "", []string{"version"}, 0, "gasoline " + version + "\n", ""},
		{"--version", "", []string{"--version"}, 0, "gasoline " + version + "\n", ""},
		{"version argument", "", []string{"version", "now"}, 2, "", `gasoline version: unexpected argument "now"`},
		{"unknown command", "", []string{"serve"}, 2, "", `gasoline: unknown command "serve" (see gasoline --help)`},
		{"unknown flag", "", []string{"--bogus"}, 2, "", "gasoline: flag provided but not defined: -bogus (see gasoline --help)"},
		{"stray argument", "", []string{"--headless", "now"}, 2, "", `gasoline: unknown command "now"`},
		{"flags before a command", "", []string{"--port", "9000", "extension", dir}, 2, "", "gasoline: flags go after the command: gasoline extension [flags]"},
		{"bad --pilot-approval", "", []string{"--headless", "--pilot-approval", "maybe"}, 2, "", `--pilot-approval "maybe": want ask or auto`},

		{"server --port abc", "", []string{"--headless", "--port", "abc"}, 2, "", `gasoline: --port "abc" is not a port (1-65535)`},
		{"server --port 0", "", []string{"--headless", "--port", "0"}, 2, "", `gasoline: --port "0" is not a port (1-65535)`},
		{"server --port 70000", "", []string{"--headless", "--port=70000"}, 2, "", `gasoline: --port "70000" is not a port (1-65535)`},
		{"server --port -1", "", []string{"--headless", "--port", "-1"}, 2, "", `gasoline: --port "-1" is not a port (1-65535)`},
		{"mcp --port 0", "", []string{"--mcp", "--port", "0"}, 2, "", `gasoline: --port "0" is not a port (1-65535)`},
		{"server GASOLINE_PORT=abc", "abc", []string{"--headless"}, 2, "", `gasoline: GASOLINE_PORT="abc" is not a port (1-65535)`},
		{"server GASOLINE_PORT=0", "0", []string{"--headless"}, 2, "", `gasoline: GASOLINE_PORT="0" is not a port (1-65535)`},
		{"server GASOLINE_PORT=70000", "70000", []string{"--headless"}, 2, "", `gasoline: GASOLINE_PORT="70000" is not a port (1-65535)`},
		{"server GASOLINE_PORT=-1", "-1", []string{"--headless"}, 2, "", `gasoline: GASOLINE_PORT="-1" is not a port (1-65535)`},
		{"mcp GASOLINE_PORT=abc", "abc", []string{"--mcp"}, 2, "", `gasoline: GASOLINE_PORT="abc" is not a port (1-65535)`},
		{"dashboard GASOLINE_PORT=abc", "abc", nil, 2, "", `gasoline: GASOLINE_PORT="abc" is not a port (1-65535)`},
		{"a bad env port under a bad flag names the flag", "abc", []string{"--headless", "--port", "0"}, 2, "", `gasoline: --port "0" is not a port`},

		{"setup --port abc", "", []string{"setup", "--port", "abc"}, 2, "", `gasoline setup: --port "abc" is not a port (1-65535) (see gasoline setup --help)`},
		{"setup --port -1", "", []string{"setup", "--port", "-1"}, 2, "", `gasoline setup: --port "-1" is not a port (1-65535)`},
		{"setup GASOLINE_PORT=0", "0", []string{"setup"}, 2, "", `gasoline setup: GASOLINE_PORT="0" is not a port (1-65535)`},
		{"setup GASOLINE_PORT=-1", "-1", []string{"setup", "--dry-run"}, 2, "", `gasoline setup: GASOLINE_PORT="-1" is not a port (1-65535)`},
		{"doctor --port 70000", "", []string{"doctor", "--port", "70000"}, 2, "", `gasoline doctor: --port "70000" is not a port (1-65535)`},
		{"doctor --port 0", "", []string{"doctor", "--json", "--port", "0"}, 2, "", `gasoline doctor: --port "0" is not a port (1-65535)`},
		{"doctor GASOLINE_PORT=abc", "abc", []string{"doctor"}, 2, "", `gasoline doctor: GASOLINE_PORT="abc" is not a port (1-65535)`},
		{"extension --port abc", "", []string{"extension", dir, "--port", "abc"}, 2, "", `gasoline extension: --port "abc" is not a port (1-65535)`},
		{"extension --port 0", "", []string{"extension", "--port", "0", dir}, 2, "", `gasoline extension: --port "0" is not a port (1-65535)`},
		{"extension GASOLINE_PORT=70000", "70000", []string{"extension", dir}, 2, "", `gasoline extension: GASOLINE_PORT="70000" is not a port (1-65535)`},
		{"extension GASOLINE_PORT=-1", "-1", []string{"extension", dir}, 2, "", `gasoline extension: GASOLINE_PORT="-1" is not a port (1-65535)`},

		{"extension without DIR", "", []string{"extension"}, 2, "", "gasoline extension: say which folder to write the extension to: gasoline extension DIR (see gasoline extension --help)"},
		{"extension without DIR, with a port", "", []string{"extension", "--port", "9000"}, 2, "", "say which folder"},
		{"extension with two folders", "", []string{"extension", dir, "other"}, 2, "", `gasoline extension: unexpected argument "other"`},
		{"extension for another browser", "", []string{"extension", dir, "--browser", "safari"}, 2, "", `gasoline extension: --browser "safari": want chrome or firefox`},
		{"extension unknown flag", "", []string{"extension", dir, "--force"}, 2, "", "gasoline extension: flag provided but not defined: -force"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			t.Setenv("GASOLINE_PORT", tc.env)
			code, out, errs := gasoline(t, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errs, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, %q, %q", code, out, errs, tc.code, tc.stdout, tc.stderr)
			}
			if tc.code == 0 && errs != "" || tc.code != 0 && out != "" {
				t.Errorf("help on stderr or errors on stdout: %q / %q", out, errs)
			}
			if ents, _ := os.ReadDir(home); len(ents) != 0 {
				t.Errorf("wrote %v", ents)
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("wrote the extension to %s", dir)
			}
		})
	}
}

// TestExtensionCommand: gasoline extension DIR writes the extension with
// the server's port (--port, else GASOLINE_PORT, else 7890) as the address
// its worker reports to, and says how to load it.
func TestExtensionCommand(t *testing.T) {
	cases := []struct {
		name string
		env  string
		args []string // DIR is appended
		port string
	}{
		{"--port after DIR", "", []string{"--port", "9001"}, "9001"},
		{"--port= before DIR", "", []string{"--port=9002", "--"}, "9002"},
		{"GASOLINE_PORT", "9003", nil, "9003"},
		{"--port over GASOLINE_PORT", "9003", []string{"--port", "9004"}, "9004"},
		{"default", "", []string{"--browser", "chrome"}, "7890"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			t.Setenv("GASOLINE_PORT", tc.env)
			dir := filepath.Join(t.TempDir(), "gasoline-extension")
			args := append([]string{"extension"}, tc.args...)
			if len(tc.args) > 0 && tc.args[0] == "--port" {
				args = []string{"extension", dir, "--port", tc.args[1]}
			} else {
				args = append(args, dir)
			}
			code, out, errs := gasoline(t, args...)
			want := "Wrote the Gasoline extension, reporting to http://127.0.0.1:" + tc.port + ", to " + dir + ".\n" +
				"In Chrome: chrome://extensions → Developer mode → Load unpacked → " + dir + "\n"
			if code != 0 || out != want || errs != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 0, %q", code, out, errs, want)
			}
			got, err := os.ReadFile(filepath.Join(dir, "sw", "address.js"))
			if err != nil || !bytes.Equal(got, extension.AddressModule("http://127.0.0.1:"+tc.port)) {
				t.Errorf("sw/address.js: %v\n%s", err, got)
			}
			if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
				t.Errorf("no manifest: %v", err)
			}
		})
	}
	// A relative DIR is named absolutely, so the instructions work from any folder.
	isolate(t)
	t.Chdir(t.TempDir())
	code, out, _ := gasoline(t, "extension", "rel")
	abs, _ := filepath.Abs("rel")
	if code != 0 || !strings.Contains(out, "Load unpacked → "+abs+"\n") {
		t.Errorf("relative DIR: exit %d, %q", code, out)
	}
	// --browser firefox writes the Firefox build: a background script, a gecko id.
	isolate(t)
	ff := filepath.Join(t.TempDir(), "ff")
	code, out, errs := gasoline(t, "extension", ff, "--browser", "firefox", "--port", "9005")
	if code != 0 || errs != "" || !strings.Contains(out, "Load Temporary Add-on → "+filepath.Join(ff, "manifest.json")+"\n") ||
		!strings.Contains(out, "accept it in the dashboard") {
		t.Fatalf("firefox: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	var m struct {
		Background struct {
			Scripts       []string `json:"scripts"`
			ServiceWorker string   `json:"service_worker"`
		} `json:"background"`
		Settings struct {
			Gecko struct{ ID string } `json:"gecko"`
		} `json:"browser_specific_settings"`
	}
	b, err := os.ReadFile(filepath.Join(ff, "manifest.json"))
	if err != nil || json.Unmarshal(b, &m) != nil || len(m.Background.Scripts) == 0 || m.Background.ServiceWorker != "" || m.Settings.Gecko.ID == "" {
		t.Errorf("firefox manifest: %v %+v", err, m)
	}
	if got, _ := os.ReadFile(filepath.Join(ff, "sw", "address.js")); !bytes.Equal(got, extension.AddressModule("http://127.0.0.1:9005")) {
		t.Errorf("firefox sw/address.js: %s", got)
	}
}

// TestVersionLine: the release, then the commit from the build's flags or
// else from Go's VCS stamp.
func TestVersionLine(t *testing.T) {
	stamp := func(kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	cases := []struct {
		name   string
		commit string
		info   *debug.BuildInfo
		ok     bool
		want   string
	}{
		{"make build", "abc1234-dirty", stamp("vcs.revision", "ffffffffff"), true, "0.1.0 (commit abc1234-dirty)"},
		{"go build in a clone", "", stamp("vcs.revision", "0123456789abcdef", "vcs.modified", "false"), true, "0.1.0 (commit 0123456)"},
		{"go build, uncommitted changes", "", stamp("vcs.revision", "0123456789abcdef", "vcs.modified", "true"), true, "0.1.0 (commit 0123456, modified)"},
		{"no VCS stamp", "", stamp("-compiler", "gc"), true, "0.1.0"},
		{"no build info", "", nil, false, "0.1.0"},
	}
	for _, tc := range cases {
		if got := versionLine(tc.commit, tc.info, tc.ok); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestVersionIsTheManifests: the release and the extension it ships carry
// one version, so the doctor compares like with like.
func TestVersionIsTheManifests(t *testing.T) {
	if got := shippedExtensionVersion(); got != version {
		t.Errorf("extension/manifest.json says %q, the release is %q", got, version)
	}
}
