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
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"golang.org/x/sync/errgroup"

	"github.com/gasoline-dev/gasoline/extension"
	"github.com/gasoline-dev/gasoline/server"
	"github.com/gasoline-dev/gasoline/tui"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const usage = `Gasoline gives your AI coding assistant eyes in your browser.

Usage:
  gasoline [flags]             open the dashboard, with the server on 127.0.0.1:PORT
                               (headless when stdout is not a terminal)
  gasoline --mcp [flags]       speak MCP over stdio (what an AI client starts);
                               relays to a running server, or runs one in-process
  gasoline extension DIR       write the Chrome extension to DIR ("Load unpacked")
  gasoline setup               add gasoline to your MCP clients' configs (--help for more)
  gasoline doctor              say what is wrong, and the command that fixes it

Flags:
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
	fs := flag.NewFlagSet("gasoline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	defPort := 7890
	if p, err := strconv.Atoi(os.Getenv("GASOLINE_PORT")); err == nil {
		defPort = p
	}
	home, _ := os.UserHomeDir()
	dataDir := filepath.Join(home, ".gasoline")
	defAudit := filepath.Join(dataDir, "audit.jsonl")
	if p := os.Getenv("GASOLINE_AUDIT_LOG"); p != "" {
		defAudit = p
	}
	var (
		auditLog = fs.String("audit-log", defAudit, "JSONL audit log of AI changes and human vetoes (env GASOLINE_AUDIT_LOG)")
		mcpMode  = fs.Bool("mcp", false, "serve MCP over stdio; stdout carries only JSON-RPC")
		headless = fs.Bool("headless", false, "run the server without the dashboard")
		port     = fs.Int("port", defPort, "loopback port of the server (env GASOLINE_PORT)")
		showVer  = fs.Bool("version", false, "print the version and exit")
		approve  = fs.String("pilot-approval", "", "ask: every Web Pilot action waits for your y/n in the dashboard; auto: none does (default: your last choice, else auto)")
		approveT = fs.Duration("approval-timeout", 60*time.Second, "how long a Web Pilot action waits for your answer in ask mode")
	)
	if err := fs.Parse(argv); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *showVer {
		fmt.Fprintln(stdout, "gasoline", version)
		return 0
	}
	if *port < 0 || *port > 65535 {
		fmt.Fprintf(stderr, "gasoline: --port %d is not a TCP port\n", *port)
		return 2
	}
	if fs.NArg() > 0 {
		return subcommand(ctx, fs.Args(), stdout, stderr)
	}
	cfg := server.Config{Version: version, Log: stderr, AuditLog: *auditLog, ScreenshotDir: filepath.Join(dataDir, "screenshots"),
		HARDir: filepath.Join(dataDir, "har")}
	if *approve != "" && *approve != "ask" && *approve != "auto" {
		fmt.Fprintf(stderr, "gasoline: --pilot-approval %q: want ask or auto\n", *approve)
		return 2
	}
	cfg.Port, cfg.PilotApproval, cfg.ApprovalTimeout = *port, *approve, *approveT
	if *auditLog != "" {
		// Beside the audit log, one per port: each server on a port inherits
		// the decisions the human made about that port's previous server.
		cfg.StateFile = filepath.Join(filepath.Dir(*auditLog), fmt.Sprintf("decisions-%d.json", *port))
		cfg.TokenFile = filepath.Join(filepath.Dir(*auditLog), fmt.Sprintf("human-%d.token", *port))
		cfg.HistoryDir = filepath.Join(filepath.Dir(*auditLog), fmt.Sprintf("history-%d", *port))
	}
	var err error
	switch {
	case *mcpMode:
		err = server.RunMCP(ctx, cfg, *port, stdin, stdout)
	default:
		switch {
		case *headless:
			err = serve(ctx, cfg, *port, stderr)
		case !isTerminal(stdout):
			fmt.Fprintln(stderr, "gasoline: stdout is not a terminal; running headless")
			err = serve(ctx, cfg, *port, stderr)
		default:
			err = dashboard(ctx, cfg, *port, stderr)
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
	hosting, err := host(gctx)
	if err != nil {
		return err
	}
	g.Go(func() error {
		defer cancel() // quitting the dashboard stops the in-process server
		return tui.Run(gctx, tui.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Hosting: hosting,
			Takeover: host, AuditLog: cfg.AuditLog, TokenFile: cfg.TokenFile, Logs: logs})
	})
	return g.Wait()
}

func subcommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch args[0] {
	case "setup":
		return runSetup(ctx, args[1:], stdout, stderr)
	case "doctor":
		return runDoctor(ctx, args[1:], stdout, stderr)
	case "extension":
		if len(args) != 2 {
			fmt.Fprintln(stderr, "usage: gasoline extension DIR")
			return 2
		}
		if err := extension.WriteTo(args[1]); err != nil {
			fmt.Fprintln(stderr, "gasoline: write extension:", err)
			return 1
		}
		fmt.Fprintf(stdout, "Wrote the Gasoline extension to %s.\nIn Chrome: chrome://extensions → Developer mode → Load unpacked → %s\n", args[1], args[1])
		return 0
	}
	fmt.Fprintf(stderr, "gasoline: unknown command %q (try --help)\n", args[0])
	return 2
}
