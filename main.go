// Command gasoline gives an AI coding assistant eyes in the developer's
// browser: it runs the local server the Gasoline extension reports to, and
// speaks MCP to AI clients with --mcp.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"golang.org/x/sync/errgroup"

	"github.com/gasoline-dev/gasoline/server"
	"github.com/gasoline-dev/gasoline/tui"
)

const usage = `Gasoline gives your AI coding assistant eyes in your browser.

Usage:
  gasoline [flags]             open the dashboard, with the server on 127.0.0.1:PORT
                               (headless when stdout is not a terminal)
  gasoline --mcp [flags]       speak MCP over stdio (what an AI client starts);
                               relays to a running server, or runs one in-process
  gasoline extension DIR       write the extension to DIR, reporting to the server's
                               port (--port N, --browser chrome|firefox)
  gasoline setup               add gasoline to your MCP clients' configs
  gasoline doctor              say what is wrong, and the command that fixes it
  gasoline help [COMMAND]      this help, or a command's
  gasoline version             the version and the commit it was built from

Flags:
  --port N                     loopback port of the server (default 7890, env GASOLINE_PORT)
`

// memoryLimit is the heap size past which the collector works harder,
// unless GOMEMLIMIT says otherwise: the server aims to stay under 100 MB
// resident, and by default Go lets garbage grow to twice the live heap.
const memoryLimit = 64 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(argv) > 0 && !strings.HasPrefix(argv[0], "-") {
		return subcommand(ctx, argv, stdout, stderr)
	}
	fs := flag.NewFlagSet("gasoline", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	home, _ := os.UserHomeDir()
	dataDir := filepath.Join(home, ".gasoline")
	defAudit := filepath.Join(dataDir, "audit.jsonl")
	if p := os.Getenv("GASOLINE_AUDIT_LOG"); p != "" {
		defAudit = p
	}
	var portArg portFlag
	fs.Var(&portArg, "port", "")
	var (
		auditLog = fs.String("audit-log", defAudit, "the JSONL audit log of AI changes and human vetoes, at `PATH` (env GASOLINE_AUDIT_LOG)")
		mcpMode  = fs.Bool("mcp", false, "serve MCP over stdio; stdout carries only JSON-RPC")
		headless = fs.Bool("headless", false, "run the server without the dashboard")
		showVer  = fs.Bool("version", false, "print the version and exit")
		approve  = fs.String("pilot-approval", "", "whether each Web Pilot action waits for your y/n in the dashboard: `MODE` ask or auto (default: your last choice, else auto)")
		approveT = fs.Duration("approval-timeout", 60*time.Second, "how long a Web Pilot action waits for your answer in ask mode")
	)
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "gasoline: %s (see gasoline --help)\n", fmt.Sprintf(format, a...))
		return 2
	}
	switch err := fs.Parse(argv); {
	case errors.Is(err, flag.ErrHelp):
		return printUsage(fs, stdout)
	case err != nil:
		return fail("%v", err)
	case *showVer:
		return printVersion(stdout)
	case fs.NArg() > 0 && isCommand(fs.Arg(0)):
		return fail("flags go after the command: gasoline %s [flags]", fs.Arg(0))
	case fs.NArg() > 0:
		return fail("unknown command %q", fs.Arg(0))
	}
	port, err := portArg.resolve()
	if err != nil {
		return fail("%v", err)
	}
	if *approve != "" && *approve != "ask" && *approve != "auto" {
		return fail("--pilot-approval %q: want ask or auto", *approve)
	}
	cfg := server.Config{Version: version, Log: stderr, AuditLog: *auditLog, ScreenshotDir: filepath.Join(dataDir, "screenshots"),
		HARDir: filepath.Join(dataDir, "har"), VisualDir: filepath.Join(dataDir, "visual"), DataDir: dataDir}
	cfg.Port, cfg.PilotApproval, cfg.ApprovalTimeout = port, *approve, *approveT
	if *auditLog != "" {
		// Beside the audit log, one per port: each server on a port inherits
		// the decisions the human made about that port's previous server.
		cfg.StateFile = filepath.Join(filepath.Dir(*auditLog), fmt.Sprintf("decisions-%d.json", port))
		cfg.TokenFile = filepath.Join(filepath.Dir(*auditLog), fmt.Sprintf("human-%d.token", port))
		cfg.HistoryDir = filepath.Join(filepath.Dir(*auditLog), fmt.Sprintf("history-%d", port))
	}
	switch {
	case *mcpMode:
		err = server.RunMCP(ctx, cfg, port, stdin, stdout)
	default:
		switch {
		case *headless:
			err = serve(ctx, cfg, port, stderr)
		case !isTerminal(stdout):
			fmt.Fprintln(stderr, "gasoline: stdout is not a terminal; running headless")
			err = serve(ctx, cfg, port, stderr)
		default:
			err = dashboard(ctx, cfg, port, stderr)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "gasoline:", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, cfg server.Config, port int, stderr io.Writer) error {
	ln, err := server.Listen(ctx, port)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "gasoline %s: serving on http://%s — waiting for the extension\n", version, ln.Addr())
	return server.New(cfg).Serve(ctx, ln)
}

// isTerminal reports whether w is a terminal the dashboard can draw on.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// dashboard runs the terminal dashboard. It hosts the server in this
// process when the port is free, or attaches to the Gasoline server that
// owns it; either way the dashboard talks to the server only over HTTP. If
// an attached-to owner exits, the dashboard takes the port over.
func dashboard(ctx context.Context, cfg server.Config, port int, stderr io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The dashboard owns the terminal: the server's log goes to its
	// status line, and to stderr again once it closes.
	logs := tui.NewLogSink(stderr)
	cfg.Log = logs
	g, gctx := errgroup.WithContext(ctx)
	// host is also the takeover: it runs inside the dashboard's goroutine,
	// so adding the server to g there is safe.
	host := func(ctx context.Context) (bool, error) {
		ln, err := server.HostOrAttach(ctx, port, nil)
		if err != nil || ln == nil {
			return false, err
		}
		srv := server.New(cfg)
		g.Go(func() error { return srv.Serve(gctx, ln) })
		return true, nil
	}
	// The dashboard opens at once and shows it connecting while host
	// finds the port's owner (a dying one may take seconds to let go).
	g.Go(func() error {
		defer cancel() // quitting the dashboard stops the in-process server
		return tui.Run(gctx, tui.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Connect: true,
			Takeover: host, AuditLog: cfg.AuditLog, TokenFile: cfg.TokenFile, Logs: logs, Doctor: liveDoctor(port, cfg.AuditLog)})
	})
	return g.Wait()
}

// commands are the subcommands, by name.
var commands = map[string]func(context.Context, []string, io.Writer, io.Writer) int{
	"setup":     runSetup,
	"doctor":    runDoctor,
	"extension": runExtension,
}

func isCommand(name string) bool {
	_, ok := commands[name]
	return ok || name == "help" || name == "version"
}

func subcommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	name, rest := args[0], args[1:]
	switch {
	case name == "help" && len(rest) == 0:
		return run(ctx, []string{"--help"}, nil, stdout, stderr)
	case name == "help" && len(rest) == 1 && commands[rest[0]] != nil:
		return commands[rest[0]](ctx, []string{"--help"}, stdout, stderr)
	case name == "help" && len(rest) == 1 && isCommand(rest[0]):
		return run(ctx, []string{"--help"}, nil, stdout, stderr)
	case name == "help":
		fmt.Fprintf(stderr, "gasoline help: no command %q (see gasoline --help)\n", strings.Join(rest, " "))
		return 2
	case name == "version" && len(rest) == 0:
		return printVersion(stdout)
	case name == "version":
		fmt.Fprintf(stderr, "gasoline version: unexpected argument %q\n", rest[0])
		return 2
	case commands[name] != nil:
		return commands[name](ctx, rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "gasoline: unknown command %q (see gasoline --help)\n", name)
	return 2
}

// printUsage is gasoline --help, on stdout: asked for, it is the output.
func printUsage(fs *flag.FlagSet, stdout io.Writer) int {
	fmt.Fprint(stdout, usage)
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "port" { // described in usage, with its env and default
			return
		}
		name, use := flag.UnquoteUsage(f)
		syntax := f.Name
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
			syntax += " " + strings.ToUpper(name)
		}
		if f.DefValue != "" && f.DefValue != "false" {
			use += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(stdout, "  --%-27s%s\n", syntax, use)
	})
	return 0
}
