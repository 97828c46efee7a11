// Package doctor says what stands between a developer and a working
// Gasoline: who holds the port, which server and extension versions run,
// whether the extension is connected, the pilot's state, the audit log,
// and whether each MCP client is set up to start this binary. Every
// problem comes with the command that fixes it.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Status is how one check came out.
type Status string

// The statuses. Only Fail counts as a problem.
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"` // stable, for scripts: port, server, extension, pilot, audit_log, client:NAME
	Status Status `json:"status"`
	Detail string `json:"detail"`
	// Fix is the command (or the clicks) that fixes a problem.
	Fix   string `json:"fix,omitempty"`
	label string
}

// Report is every check, in order.
type Report struct {
	Problems int     `json:"problems"`
	Checks   []Check `json:"checks"`
}

// ClientConfig is what one MCP client's configuration says about Gasoline.
type ClientConfig struct {
	Name, Title, File string
	Installed         bool
	Exists            bool
	// HasEntry: the file has a gasoline entry, which starts Command Args.
	HasEntry bool
	Command  string
	Args     []string
	Err      error // the file could not be read or parsed
}

// Inputs is everything the doctor looks at; the CLI fills it from the
// machine, tests from fakes.
type Inputs struct {
	Port, DefaultPort int
	Version           string // this binary's
	ExtensionVersion  string // the extension this binary ships
	Binary            string // this binary's absolute path
	AuditLog          string // the audit log this binary would write
	ExtensionDir      string // where gasoline setup writes the extension
	Server            Server
	Writable          func(path string) error
	Clients           []ClientConfig
}

// Run makes every check.
func Run(ctx context.Context, in Inputs) Report {
	var r Report
	add := func(name, label string, st Status, detail, fix string) {
		if st == Fail {
			r.Problems++
		}
		r.Checks = append(r.Checks, Check{Name: name, label: label, Status: st, Detail: detail, Fix: fix})
	}
	addr := "127.0.0.1:" + strconv.Itoa(in.Port)
	h, err := in.Server.Health(ctx)
	running := err == nil
	switch {
	case running:
		add("port", "port", OK, addr+" is held by Gasoline", "")
	case errors.Is(err, ErrFree):
		add("port", "port", OK, addr+" is free: the dashboard or the first AI client to start takes it", "")
	case errors.Is(err, ErrForeign):
		alt := strconv.Itoa(in.Port + 1)
		add("port", "port", Fail, "another program holds "+addr+": "+err.Error(),
			fmt.Sprintf("lsof -iTCP:%d -sTCP:LISTEN (to find and stop it), or move Gasoline: gasoline --port %s and gasoline setup --port %s", in.Port, alt, alt))
	default:
		add("port", "port", Fail, "cannot tell who holds "+addr+": "+err.Error(), "")
	}
	in.server(running, h, add)
	log := in.AuditLog
	if running && h.AuditLog != "" {
		log = h.AuditLog
	}
	if err := in.Writable(log); err != nil {
		add("audit_log", "audit log", Fail, log+" is not writable: "+err.Error(),
			"chmod u+w "+log+" (or start gasoline with --audit-log PATH)")
	} else {
		add("audit_log", "audit log", OK, log+" is writable", "")
	}
	in.clients(h.Clients, add)
	return r
}

// server checks the running server's version, the extension and the pilot.
func (in Inputs) server(running bool, h Health, add func(name, label string, st Status, detail, fix string)) {
	if !running {
		add("server", "server", Skip, "no Gasoline server is running", "gasoline (opens the dashboard and starts the server)")
		add("extension", "extension", Warn, "cannot tell: no server for it to connect to", "gasoline")
		return
	}
	if h.Version == in.Version {
		add("server", "server", OK, "gasoline "+h.Version, "")
	} else {
		add("server", "server", Fail, fmt.Sprintf("the server runs gasoline %s, this binary is %s", h.Version, in.Version),
			"quit the old server (q in its dashboard), then run gasoline")
	}
	load := fmt.Sprintf("gasoline setup, then in Chrome: chrome://extensions → Developer mode → Load unpacked → %s", in.ExtensionDir)
	if in.Port != in.DefaultPort {
		load += fmt.Sprintf("; in the extension's options set the server to http://127.0.0.1:%d", in.Port)
	}
	switch e := h.Extension; {
	case !e.Connected:
		add("extension", "extension", Fail, "not connected", load)
	case e.Version == "":
		add("extension", "extension", OK, "connected (the server does not report its version)", "")
	case e.Version != in.ExtensionVersion:
		add("extension", "extension", Fail, fmt.Sprintf("connected, but version %s is loaded and this gasoline ships %s", e.Version, in.ExtensionVersion),
			"gasoline setup, then click Reload on Gasoline in chrome://extensions")
	default:
		add("extension", "extension", OK, "connected, version "+e.Version, "")
	}
	switch p := h.Pilot; {
	case p.BlockedByUser:
		add("pilot", "pilot", OK, "blocked from the dashboard", "")
	case p.Enabled:
		add("pilot", "pilot", OK, "on: the AI may drive the page", "")
	case p.State == "unknown":
		add("pilot", "pilot", OK, "unknown: the extension is not in contact, so the AI may not drive the page", "")
	default:
		add("pilot", "pilot", OK, "off (the human turns it on in the extension's popup)", "")
	}
}

// clients checks that each installed client starts this binary on this port.
// connected are the clients the server speaks with now: one of them is an
// MCP client found, whether or not gasoline setup configured it.
func (in Inputs) clients(connected []string, add func(name, label string, st Status, detail, fix string)) {
	seen := false
	for _, c := range in.Clients {
		if !c.Installed && !c.Exists {
			continue
		}
		seen = true
		fix := "gasoline setup --client " + c.Name
		if in.Port != in.DefaultPort {
			fix += " --port " + strconv.Itoa(in.Port)
		}
		name, label := "client:"+c.Name, c.Title
		switch port := portOf(c.Args, in.DefaultPort); {
		case c.Err != nil:
			add(name, label, Fail, c.Err.Error(), "correct the file there, then "+fix)
		case !c.HasEntry:
			add(name, label, Fail, c.File+" does not start Gasoline", fix)
		case c.Command != in.Binary:
			add(name, label, Fail, fmt.Sprintf("%s starts %s, not this binary (%s)", c.File, c.Command, in.Binary), fix)
		case !slices.Contains(c.Args, "--mcp"):
			add(name, label, Fail, c.File+" starts gasoline without --mcp", fix)
		case port != in.Port:
			add(name, label, Fail, fmt.Sprintf("%s starts gasoline on port %d, not %d", c.File, port, in.Port), fix)
		default:
			add(name, label, OK, c.File+" starts this binary", "")
		}
	}
	switch {
	case !seen && len(connected) > 0:
		add("clients", "MCP clients", OK, "connected: "+strings.Join(connected, ", ")+" (none configured by gasoline setup)", "")
	case !seen:
		add("clients", "MCP clients", Warn, "none connected, none configured", "gasoline setup --client NAME (gasoline setup --help lists them)")
	}
}

// portOf is the port a gasoline command line names, or def.
func portOf(args []string, def int) int {
	for i, a := range args {
		v, ok := strings.CutPrefix(a, "--port=")
		if !ok && a == "--port" && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if ok {
			if p, err := strconv.Atoi(v); err == nil {
				return p
			}
		}
	}
	return def
}

// WriteText writes the report for a human.
func (r Report) WriteText(w io.Writer) error {
	marks := map[Status]string{OK: "✓", Warn: "!", Fail: "✗", Skip: "-"}
	width := 0
	for _, c := range r.Checks {
		width = max(width, len(c.label))
	}
	var b strings.Builder
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "%s %-*s  %s\n", marks[c.Status], width, c.label, c.Detail)
		if c.Fix != "" && c.Status != OK {
			fmt.Fprintf(&b, "  %*s  fix: %s\n", width, "", c.Fix)
		}
	}
	b.WriteString(r.Summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Summary is the report's last line: "No problems found." only when every
// check passed; otherwise the failures, warnings and skipped checks, counted.
func (r Report) Summary() string {
	n := map[Status]int{}
	for _, c := range r.Checks {
		n[c.Status]++
	}
	if n[Fail] == 0 && n[Warn] == 0 && n[Skip] == 0 {
		return "No problems found."
	}
	var parts []string
	for _, k := range []struct {
		st   Status
		word string
	}{{Fail, "problem"}, {Warn, "warning"}, {Skip, "check skipped"}} {
		switch c := n[k.st]; {
		case c == 1:
			parts = append(parts, "1 "+k.word)
		case c > 1 && k.st == Skip:
			parts = append(parts, fmt.Sprintf("%d checks skipped", c))
		case c > 1:
			parts = append(parts, fmt.Sprintf("%d %ss", c, k.word))
		}
	}
	if n[Fail] == 0 {
		parts = append([]string{"no problems"}, parts...)
	}
	s := strings.Join(parts, ", ") + "."
	return strings.ToUpper(s[:1]) + s[1:]
}
