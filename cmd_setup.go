package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/extension"
	"github.com/gasoline-dev/gasoline/features/doctor"
	"github.com/gasoline-dev/gasoline/features/setup"
)

const setupUsage = `Usage: gasoline setup [--client NAME]... [--dry-run] [--remove] [--port N]

Adds gasoline --mcp (this binary, by its absolute path) to the MCP
configuration of every client installed here, or of each --client named,
without touching the other entries; each file changed is first copied to
FILE.gasoline-backup-TIME. Then writes the Chrome extension to
~/.gasoline/extension, reporting to the server's port, and says how to
load it.

Clients: %s

Flags:
  --client NAME   set up this client only (repeat it, or separate names with commas)
  --dry-run       print the diff of each change and write nothing
  --remove        take gasoline out of the clients' configuration again
  --port N        the server's port: the extension reports to it, and the
                  configs say --port N when it is not %d (env GASOLINE_PORT)
`

const doctorUsage = `Usage: gasoline doctor [--json] [--port N] [--audit-log PATH]

Says what stands between you and a working Gasoline: who holds the port,
the server's and the extension's versions, the pilot, the audit log, and
whether each MCP client starts this binary. Every problem comes with the
command that fixes it. Exits 1 when there is a problem.

Flags:
  --json            print the report as JSON, for scripts
  --port N          the server's port (default %d, env GASOLINE_PORT)
  --audit-log PATH  the audit log to check (env GASOLINE_AUDIT_LOG)
`

// names is a repeatable, comma-separable flag.
type names []string

func (n *names) String() string { return strings.Join(*n, ",") }
func (n *names) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*n = append(*n, s)
		}
	}
	return nil
}

// self is this binary's absolute path, symlinks resolved, as the clients
// are to start it.
func self() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this binary: %w", err)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Abs(p)
}

// runSetup is `gasoline setup`.
func runSetup(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := newSubFlags("setup", fmt.Sprintf(setupUsage, strings.Join(setup.Names(), ", "), defaultPort), stdout, stderr)
	var only names
	f.Var(&only, "client", "")
	dryRun := f.Bool("dry-run", false, "")
	remove := f.Bool("remove", false, "")
	if code := f.parse(args); code >= 0 {
		return code
	}
	var clients []setup.Client
	for _, n := range only {
		c, ok := setup.Lookup(n)
		if !ok {
			return f.fail("unknown client %q (one of: %s)", n, strings.Join(setup.Names(), ", "))
		}
		clients = append(clients, c)
	}
	env, err := setup.HostEnv()
	if err != nil {
		fmt.Fprintln(stderr, "gasoline setup:", err)
		return 1
	}
	if len(only) == 0 {
		for _, c := range setup.Clients() {
			if c.Installed(env) {
				clients = append(clients, c)
			}
		}
	}
	bin, err := self()
	if err != nil {
		fmt.Fprintln(stderr, "gasoline setup:", err)
		return 1
	}
	cmd := setup.Command{Path: bin, Args: []string{"--mcp"}}
	if f.port != defaultPort {
		cmd.Args = append(cmd.Args, "--port", strconv.Itoa(f.port))
	}
	code := 0
	if len(clients) == 0 {
		fmt.Fprintf(stderr, "gasoline setup: no MCP client found; name one with --client (%s)\n", strings.Join(setup.Names(), ", "))
		code = 1
	}
	var changed []string
	for _, c := range clients {
		ch, err := setup.Plan(c, env, cmd, *remove)
		if err != nil {
			fmt.Fprintf(stderr, "gasoline setup: %s: %v (file left untouched)\n", c.Title, err)
			code = 1
			continue
		}
		if *dryRun {
			fmt.Fprintf(stdout, "%s: %s (%s; dry run, nothing written)\n%s", c.Title, ch.Action, ch.File, ch.Diff)
			continue
		}
		if err := ch.Apply(time.Now()); err != nil {
			fmt.Fprintf(stderr, "gasoline setup: %s: %v\n", c.Title, err)
			code = 1
			continue
		}
		fmt.Fprintf(stdout, "%s: %s (%s)\n", c.Title, ch.Action, ch.File)
		if ch.Backup != "" {
			fmt.Fprintf(stdout, "  backup: %s\n", ch.Backup)
		}
		if ch.Action != setup.Unchanged {
			changed = append(changed, c.Title)
		}
	}
	if len(changed) > 0 {
		fmt.Fprintf(stdout, "Restart %s to pick up the change.\n", strings.Join(changed, ", "))
	}
	if *remove {
		return code
	}
	dir := filepath.Join(env.Home, ".gasoline", "extension")
	if *dryRun {
		fmt.Fprintf(stdout, "Would write the Chrome extension, reporting to %s, to %s.\n", serverURL(f.port), dir)
		return code
	}
	if err := extension.Write(dir, extension.Options{Port: f.port}); err != nil {
		fmt.Fprintln(stderr, "gasoline setup: write the extension:", err)
		return 1
	}
	fmt.Fprintf(stdout, "\nWrote the extension, reporting to %s, to %s.\n%s", serverURL(f.port), dir, loadSteps("chrome", dir))
	return code
}

// runDoctor is `gasoline doctor`.
func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := newSubFlags("doctor", fmt.Sprintf(doctorUsage, defaultPort), stdout, stderr)
	asJSON := f.Bool("json", false, "")
	env, err := setup.HostEnv()
	if err != nil {
		fmt.Fprintln(stderr, "gasoline doctor:", err)
		return 1
	}
	defAudit := filepath.Join(env.Home, ".gasoline", "audit.jsonl")
	if p := os.Getenv("GASOLINE_AUDIT_LOG"); p != "" {
		defAudit = p
	}
	auditLog := f.String("audit-log", defAudit, "")
	if code := f.parse(args); code >= 0 {
		return code
	}
	in, err := doctorInputs(env, f.port, *auditLog)
	if err != nil {
		fmt.Fprintln(stderr, "gasoline doctor:", err)
		return 1
	}
	r := doctor.Run(ctx, in)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(r)
	} else {
		err = r.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "gasoline doctor:", err)
		return 1
	}
	if r.Problems > 0 {
		return 1
	}
	return 0
}

// doctorInputs is what the doctor looks at on this machine for a server
// on port: gasoline doctor's, and the dashboard's live header's.
func doctorInputs(env setup.Env, port int, auditLog string) (doctor.Inputs, error) {
	bin, err := self()
	if err != nil {
		return doctor.Inputs{}, err
	}
	in := doctor.Inputs{
		Port: port, DefaultPort: defaultPort, Version: version, ExtensionVersion: shippedExtensionVersion(),
		Binary: bin, AuditLog: auditLog, ExtensionDir: filepath.Join(env.Home, ".gasoline", "extension"),
		Server:   doctor.HTTPServer{Addr: "127.0.0.1:" + strconv.Itoa(port)},
		Writable: doctor.Writable,
	}
	for _, c := range setup.Clients() {
		st, err := setup.Inspect(c, env)
		cc := doctor.ClientConfig{Name: c.Name, Title: c.Title, File: st.File, Installed: c.Installed(env), Exists: st.Exists, Err: err}
		if st.Entry != nil {
			cc.HasEntry, cc.Command, cc.Args = true, st.Entry.Path, st.Entry.Args
		}
		in.Clients = append(in.Clients, cc)
	}
	return in, nil
}

// liveDoctor is the dashboard's doctor: the checks of gasoline doctor for
// the server on port, run again on each call (client configs change).
func liveDoctor(port int, auditLog string) func(context.Context) doctor.Report {
	return func(ctx context.Context) doctor.Report {
		env, err := setup.HostEnv()
		if err != nil {
			return doctor.Report{Problems: 1, Checks: []doctor.Check{{Name: "home", Status: doctor.Fail, Detail: err.Error()}}}
		}
		in, err := doctorInputs(env, port, auditLog)
		if err != nil {
			return doctor.Report{Problems: 1, Checks: []doctor.Check{{Name: "binary", Status: doctor.Fail, Detail: err.Error()}}}
		}
		return doctor.Run(ctx, in)
	}
}

// shippedExtensionVersion is the version in the embedded manifest.
func shippedExtensionVersion() string {
	b, err := extension.Files.ReadFile("manifest.json")
	if err != nil {
		return ""
	}
	var m struct {
		Version string `json:"version"`
	}
	_ = json.Unmarshal(b, &m)
	return m.Version
}
