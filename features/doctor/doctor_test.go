package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type fakeServer struct {
	h   Health
	err error
}

func (f fakeServer) Health(context.Context) (Health, error) { return f.h, f.err }

func healthy() Health {
	var h Health
	h.Service, h.Version, h.AuditLog = "gasoline", "0.1.0", "/home/dev/.gasoline/audit.jsonl"
	h.Extension.Connected, h.Extension.Version = true, "0.1.0"
	return h
}

func cursor() ClientConfig {
	return ClientConfig{Name: "cursor", Title: "Cursor", File: "/home/dev/.cursor/mcp.json", Installed: true, Exists: true,
		HasEntry: true, Command: "/usr/local/bin/gasoline", Args: []string{"--mcp"}}
}

func inputs() Inputs {
	return Inputs{Port: 7890, DefaultPort: 7890, Version: "0.1.0", ExtensionVersion: "0.1.0",
		Binary: "/usr/local/bin/gasoline", AuditLog: "/home/dev/.gasoline/audit.jsonl", ExtensionDir: "/home/dev/.gasoline/extension",
		Server: fakeServer{h: healthy()}, Writable: func(string) error { return nil }, Clients: []ClientConfig{cursor()}}
}

// want is what one check must say: its status and words in its detail and fix.
type want struct {
	status      Status
	detail, fix string
}

func TestDoctor(t *testing.T) {
	cases := []struct {
		name     string
		change   func(*Inputs)
		problems int
		checks   map[string]want
	}{
		{"all good", func(*Inputs) {}, 0, map[string]want{
			"port": {OK, "127.0.0.1:7890 is held by Gasoline", ""}, "server": {OK, "gasoline 0.1.0", ""},
			"extension": {OK, "connected, version 0.1.0", ""}, "pilot": {OK, "off", ""},
			"audit_log": {OK, "/home/dev/.gasoline/audit.jsonl is writable", ""}, "client:cursor": {OK, "starts this binary", ""}}},
		{"port free", func(in *Inputs) { in.Server = fakeServer{err: ErrFree} }, 0, map[string]want{
			"port": {OK, "is free", ""}, "server": {Skip, "no Gasoline server", "gasoline"}, "extension": {Warn, "cannot tell", "gasoline"}}},
		{"port foreign", func(in *Inputs) { in.Server = fakeServer{err: fmt.Errorf("%w (HTTP 404)", ErrForeign)} }, 1, map[string]want{
			"port": {Fail, "another program holds 127.0.0.1:7890", "lsof -iTCP:7890 -sTCP:LISTEN"}}},
		{"old server", func(in *Inputs) { h := healthy(); h.Version = "0.0.9"; in.Server = fakeServer{h: h} }, 1, map[string]want{
			"server": {Fail, "runs gasoline 0.0.9, this binary is 0.1.0", "quit the old server"}}},
		{"extension missing on another port", func(in *Inputs) {
			h := healthy()
			h.Extension.Connected = false
			in.Server, in.Port = fakeServer{h: h}, 9000
			in.Clients[0].Args = []string{"--mcp", "--port", "9000"}
		}, 1, map[string]want{
			"extension":     {Fail, "not connected", "Load unpacked → /home/dev/.gasoline/extension; in the extension's options set the server to http://127.0.0.1:9000"},
			"client:cursor": {OK, "starts this binary", ""}}},
		{"extension version mismatch", func(in *Inputs) { h := healthy(); h.Extension.Version = "0.0.8"; in.Server = fakeServer{h: h} }, 1, map[string]want{
			"extension": {Fail, "version 0.0.8 is loaded and this gasoline ships 0.1.0", "Reload"}}},
		{"extension version unknown", func(in *Inputs) { h := healthy(); h.Extension.Version = ""; in.Server = fakeServer{h: h} }, 0, map[string]want{
			"extension": {OK, "does not report its version", ""}}},
		{"pilot on", func(in *Inputs) { h := healthy(); h.Pilot.Enabled = true; in.Server = fakeServer{h: h} }, 0, map[string]want{
			"pilot": {OK, "on", ""}}},
		{"audit log read-only", func(in *Inputs) {
			in.Writable = func(p string) error { return fmt.Errorf("open %s: permission denied", p) }
		}, 1, map[string]want{
			"audit_log": {Fail, "permission denied", "chmod u+w /home/dev/.gasoline/audit.jsonl"}}},
		{"client not set up", func(in *Inputs) { in.Clients[0].HasEntry = false }, 1, map[string]want{
			"client:cursor": {Fail, "does not start Gasoline", "gasoline setup --client cursor"}}},
		{"client starts another binary", func(in *Inputs) { in.Clients[0].Command = "/old/gasoline" }, 1, map[string]want{
			"client:cursor": {Fail, "starts /old/gasoline, not this binary (/usr/local/bin/gasoline)", "gasoline setup --client cursor"}}},
		{"client on another port", func(in *Inputs) { in.Clients[0].Args = []string{"--mcp", "--port=9000"} }, 1, map[string]want{
			"client:cursor": {Fail, "on port 9000, not 7890", "gasoline setup --client cursor"}}},
		{"client config malformed", func(in *Inputs) {
			in.Clients[0].Err = errors.New("/home/dev/.cursor/mcp.json: line 5, column 7: invalid character")
		}, 1, map[string]want{
			"client:cursor": {Fail, "mcp.json: line 5", "then gasoline setup --client cursor"}}},
		{"client config missing", func(in *Inputs) { in.Clients[0].Exists, in.Clients[0].HasEntry = false, false }, 1, map[string]want{
			"client:cursor": {Fail, "does not start Gasoline", "gasoline setup --client cursor"}}},
		{"no client", func(in *Inputs) { in.Clients = []ClientConfig{{Name: "zed", Title: "Zed"}} }, 0, map[string]want{
			"clients": {Warn, "none connected, none configured", "gasoline setup --client NAME"}, "client:zed": {}}},
		// The header names the connected clients; the doctor agrees.
		{"a client connected, none configured", func(in *Inputs) {
			in.Clients = nil
			h := healthy()
			h.Clients = []string{"nc-claude"}
			in.Server = fakeServer{h: h}
		}, 0, map[string]want{"clients": {OK, "connected: nc-claude (none configured by gasoline setup)", ""}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := inputs()
			tc.change(&in)
			r := Run(context.Background(), in)
			if r.Problems != tc.problems {
				t.Errorf("problems = %d, want %d: %+v", r.Problems, tc.problems, r.Checks)
			}
			got := map[string]Check{}
			for _, c := range r.Checks {
				got[c.Name] = c
			}
			for name, w := range tc.checks {
				c, ok := got[name]
				if w.status == "" {
					if ok {
						t.Errorf("%s is reported: %+v", name, c)
					}
					continue
				}
				if !ok || c.Status != w.status || !strings.Contains(c.Detail, w.detail) || !strings.Contains(c.Fix, w.fix) {
					t.Errorf("%s = %+v, want %+v", name, c, w)
				}
				if c.Status == Fail && c.Fix == "" {
					t.Errorf("%s fails without a fix", name)
				}
			}
		})
	}
}

func TestReportText(t *testing.T) {
	in := inputs()
	in.Clients[0].HasEntry = false
	var b strings.Builder
	if err := Run(context.Background(), in).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	const want = `✓ port       127.0.0.1:7890 is held by Gasoline
✓ server     gasoline 0.1.0
✓ extension  connected, version 0.1.0
✓ pilot      off (the human turns it on in the extension's popup)
✓ audit log  /home/dev/.gasoline/audit.jsonl is writable
✗ Cursor     /home/dev/.cursor/mcp.json does not start Gasoline
             fix: gasoline setup --client cursor
1 problem.
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// The last line says "No problems found." only when every check passed.
func TestReportSummary(t *testing.T) {
	for _, tc := range []struct {
		checks []Status
		want   string
	}{
		{[]Status{OK, OK}, "No problems found."},
		{[]Status{OK, Warn}, "No problems, 1 warning."},
		{[]Status{Skip, Warn, OK}, "No problems, 1 warning, 1 check skipped."},
		{[]Status{Fail, Warn, Warn, Skip, Skip}, "1 problem, 2 warnings, 2 checks skipped."},
		{[]Status{Fail, Fail}, "2 problems."},
	} {
		var r Report
		for _, st := range tc.checks {
			r.Checks = append(r.Checks, Check{Status: st})
		}
		if got := r.Summary(); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.checks, got, tc.want)
		}
	}
}

// TestHTTPServer asks real HTTP servers what they are.
func TestHTTPServer(t *testing.T) {
	ours := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			http.NotFound(w, r)
			return
		}
		h := healthy()
		h.Pilot.Enabled = true
		json.NewEncoder(w).Encode(h)
	}))
	defer ours.Close()
	h, err := HTTPServer{Addr: ours.Listener.Addr().String()}.Health(context.Background())
	if err != nil || h.Version != "0.1.0" || !h.Extension.Connected || h.Extension.Version != "0.1.0" || !h.Pilot.Enabled {
		t.Errorf("ours: %+v, %v", h, err)
	}

	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html>dev server</html>")
	}))
	defer other.Close()
	if _, err := (HTTPServer{Addr: other.Listener.Addr().String()}).Health(context.Background()); !errors.Is(err, ErrForeign) {
		t.Errorf("another web server: %v, want ErrForeign", err)
	}

	// A program that takes connections and hangs up without HTTP.
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	go func() {
		for {
			c, err := raw.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if _, err := (HTTPServer{Addr: raw.Addr().String()}).Health(context.Background()); !errors.Is(err, ErrForeign) {
		t.Errorf("a non-HTTP program: %v, want ErrForeign", err)
	}

	free := raw.Addr().String()
	raw.Close()
	if _, err := (HTTPServer{Addr: free}).Health(context.Background()); !errors.Is(err, ErrFree) {
		t.Errorf("a closed port: %v, want ErrFree", err)
	}
}

func TestWritable(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "audit.jsonl")
	os.WriteFile(existing, []byte("{}\n"), 0o644)
	if err := Writable(existing); err != nil {
		t.Errorf("existing file: %v", err)
	}
	if b, _ := os.ReadFile(existing); string(b) != "{}\n" {
		t.Errorf("the log changed: %q", b)
	}
	missing := filepath.Join(dir, "new", "deeper", "audit.jsonl")
	if err := Writable(missing); err != nil {
		t.Errorf("a log in a folder still to be made: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("Writable left files behind: %v", ents)
	}
	// A path through a regular file can never be created.
	if err := Writable(filepath.Join(existing, "audit.jsonl")); err == nil {
		t.Error("a path under a file is writable?")
	}
}
