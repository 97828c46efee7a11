// Package server holds Gasoline's transports: the HTTP endpoints the
// extension uses, the MCP tool surface, and the stdio relay.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/sync/errgroup"

	"github.com/gasoline-dev/gasoline/features/a11y"
	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/capturectl"
	"github.com/gasoline-dev/gasoline/features/decisions"
	"github.com/gasoline-dev/gasoline/features/origins"
	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/pointing"
	"github.com/gasoline-dev/gasoline/features/reads"
	"github.com/gasoline-dev/gasoline/features/screenshots"
	"github.com/gasoline-dev/gasoline/features/sessiontabs"
	"github.com/gasoline-dev/gasoline/features/sourcemap"
	"github.com/gasoline-dev/gasoline/features/streaming"
	"github.com/gasoline-dev/gasoline/features/visual"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// Service is what GET /health answers in "service", so a relay can tell a
// Gasoline server from another program on the port.
const Service = "gasoline"

// limits are the time limits of plain HTTP requests, and of each ping or
// write on long-lived streams (tests shorten them).
type limits struct {
	header, read, write, idle time.Duration
	// ping is how often a WebSocket peer is pinged, and how long it has
	// to answer; stream bounds one write to an event stream.
	ping, stream time.Duration
	// status is how often an event stream carries the server's status
	// (besides when an MCP client comes or goes).
	status time.Duration
}

// defaultLimits: a 5 MB body over loopback takes milliseconds, so 15 s to
// read a request is generous to the extension and short for a trickler.
var defaultLimits = limits{header: 5 * time.Second, read: 15 * time.Second, write: 30 * time.Second, idle: 60 * time.Second,
	ping: 20 * time.Second, stream: 10 * time.Second, status: time.Second}

// Config is what a Server needs from main.
type Config struct {
	Version string
	// Log receives human-readable status lines (stderr in every mode).
	Log io.Writer
	// AuditLog is the JSONL audit file; empty disables auditing.
	AuditLog string
	// ScreenshotDir keeps screenshots taken on errors; empty disables them.
	ScreenshotDir string
	// VisualDir keeps the screenshots of verify's visual check; empty: no
	// visual check.
	VisualDir string
	// HARDir keeps the archives generate{format:"har"} writes; empty: only
	// small archives are returned, inline.
	HARDir string
	// Port is the port the server will serve (audit lines name it before
	// Serve learns it from the listener); 0: Serve's.
	Port int
	// StateFile keeps the human's decisions across restarts and takeovers
	// (features/decisions); empty keeps them in memory only.
	StateFile string
	// TokenFile receives the token the human's API requires (0600); the
	// dashboard reads it. Empty: the token is only in memory (tests).
	TokenFile string
	// PilotApproval is --pilot-approval: "ask", "auto", or "" to keep the
	// mode the human chose last.
	PilotApproval string
	// ApprovalTimeout bounds the wait for the human in ask mode (0: 60 s).
	ApprovalTimeout time.Duration
	// Clock is the time source of the features that keep time (tests); nil:
	// time.Now.
	Clock func() time.Time
	// HistoryDir keeps the capture buffers on disk for the port's next
	// owner (features/history); empty keeps them in memory only.
	HistoryDir string
	// DataDir is Gasoline's own folder (~/.gasoline): New makes it 0700
	// and what it holds private to the user. Empty: left alone.
	DataDir string
}

// Server is one Gasoline server: capture state, HTTP routes and MCP tools.
// What only one capability reads is grouped in a part named for it.
type Server struct {
	cfg     Config
	store   *capture.Store
	queries *browser.Broker
	page    *livePage // analyze's reads of the live page (dom.go, a11y.go, screenshot.go, visual.go)
	perf    *pageLoads
	control *overrides // the AI's capture overrides and the human's veto (overrides.go)
	trail   *auditTrail
	shots   *screenshots.Dir
	events  *hub
	streams streams
	pilot   *pilotGate // the switch, the human's block (pilot.go)
	acts    *actor     // the AI's actions (act.go)
	replays *replayer  // the human's flow replayed (replay.go)
	an      *analysis
	tracked *trackedPage // the human's tracked tab (pages.go)
	gen     *generator   // generate's artifacts (generate.go, testgen.go, har.go)
	pointed *board       // what the human pointed the AI at (pointing.go)
	mcp     *server.MCPServer
	started time.Time
	port    atomic.Int32
	limits  limits

	in      ingestion
	ext     extContact
	losses  *capture.Losses // what was lost between a page and the server (loss.go)
	clients mcpClients
	alerts  alertState
	dec     *humanDecisions // the human's decisions kept on disk (decisions.go)
	hist    historyState

	token     *humanToken    // required on the human's API (token.go)
	approvals *humanApproval // the human's say over pilot actions (approval.go, rules.go)
	tabs      *aiTabs        // each AI session's own or chosen tab (tabs.go)
	origins   *extOrigins    // extension origins besides the pinned one (origins.go)
	maps      *sourceMaps    // stacks and positions at their original sources (sourcemap.go, mapped.go)
	filtered  filteredCounts // console calls log_level left out (filtered.go)
	reads     *readLog       // what the AI read (reads.go)
}

// ingestion is how capture batches are taken in.
type ingestion struct {
	slots   chan struct{}        // batches being decoded
	batches map[string]storeFunc // capture route → what stores its batches
}

// New returns a server with empty buffers.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	s := &Server{
		cfg:     cfg,
		store:   capture.NewStore(),
		losses:  capture.NewLosses(),
		queries: browser.NewBroker(),
		events:  newHub(),
		trail:   &auditTrail{},
		started: time.Now(),
		clients: mcpClients{by: make(map[string]*session)},
		alerts:  alertState{cursors: make(map[string]uint64), bootSeen: make(map[string]bool)},
		limits:  defaultLimits,
		in:      ingestion{slots: make(chan struct{}, ingestSlots)},
	}
	s.dec = &humanDecisions{file: cfg.StateFile, flag: cfg.PilotApproval, log: cfg.Log, trail: s.trail, events: s.events,
		alerts: &s.alerts, health: s.Health}
	s.pilot = &pilotGate{Switch: pilot.New(cfg.Clock), queries: s.queries, events: s.events, trail: s.trail, save: s.dec.save, decided: s.dec.decided}
	s.origins = &extOrigins{Trust: origins.New(cfg.Clock), trail: s.trail, save: s.dec.save, decided: s.dec.decided}
	s.tracked = &trackedPage{store: s.store, events: s.events, hist: &s.hist, dir: cfg.HistoryDir, log: cfg.Log}
	s.perf = &pageLoads{Store: perf.NewStore(nil), losses: s.losses, events: s.events, trail: s.trail, started: s.started}
	s.maps = &sourceMaps{Resolver: sourcemap.New(sourcemap.Config{}), events: s.events, audit: s.trail.write}
	s.reads = &readLog{Log: reads.New(0), port: s.Port, audit: s.trail.write, events: s.events, save: s.dec.save, decided: s.dec.decided,
		tools: func() []tool { return []tool{s.observeTool(), s.analyzeTool(), s.generateTool()} }}
	s.acts = &actor{store: s.store, queries: s.queries, pilot: s.pilot.Switch, locate: s.maps.locate}
	s.approvals = &humanApproval{Queue: approval.New(nil, nil), rules: approval.NewRules(cfg.Clock), store: s.store, acts: s.acts,
		events: s.events, audit: s.trail.write, timeout: cfg.ApprovalTimeout, save: s.dec.save, decided: s.dec.decided}
	s.replays = &replayer{act: s.acts, asks: s.approvals.mode.Asks, approve: s.approvals.approve, audit: s.trail.write, changed: s.clientsChanged}
	s.approvals.stopReplays = func() { s.replays.stopReplays() }
	// The dashboards' header lists each AI's tab: a change shows at once.
	s.tabs = &aiTabs{Tabs: sessiontabs.New(s.clientsChanged), store: s.store, queries: s.queries, pilot: s.pilot.Switch, audit: s.trail.write}
	if cfg.DataDir != "" {
		if err := decisions.Protect(cfg.DataDir); err != nil {
			fmt.Fprintf(cfg.Log, "gasoline: warning: make %s private to you: %v\n", cfg.DataDir, err)
		}
	}
	if cfg.AuditLog != "" {
		s.trail.log = audit.Open(cfg.AuditLog, cfg.Log)
		s.trail.log.SetPort(cfg.Port)
		s.trail.write(audit.Event{Event: "server_start", Reason: cfg.Version, Source: "server"})
	}
	if cfg.ScreenshotDir != "" {
		s.shots = screenshots.New(cfg.ScreenshotDir)
	}
	s.pointed = &board{Board: pointing.New(0, nil), picks: pointing.NewPace(pointing.PicksPerSecond, pointing.PickBurst),
		shots: s.shots, store: s.store, events: s.events, streams: &s.streams, audit: s.trail.write, log: cfg.Log,
		notify: func(id string, params map[string]any) error {
			return s.mcp.SendNotificationToSpecificClient(id, streaming.Method, params)
		}}
	s.page = &livePage{queries: s.queries, store: s.store, audits: a11y.NewCache(), trail: s.trail}
	if cfg.VisualDir != "" {
		s.page.visuals = visual.NewDir(cfg.VisualDir)
	}
	s.control = &overrides{Controller: capturectl.New(s.trail.log, cfg.Clock), decided: s.dec.decided}
	// Beat the 5 s poll: a change reaches the extension over its socket now.
	s.control.OnChange(func(v map[string]any) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		s.queries.Notify(ctx, Settings{Type: "settings", Connected: true, CaptureOverrides: v})
	})
	s.control.OnChange(func(map[string]any) { s.events.publish("overrides", s.Overrides()) })
	s.control.OnChange(func(map[string]any) { _ = s.dec.save() })
	s.approvals.OnChange(func(p []approval.Request) {
		s.events.publish(wire.EventApprovals, wire.Approvals{Mode: s.approvals.mode.String(), Pending: p, Rules: s.approvals.rules.List()})
	})
	s.approvals.watchRules()
	s.origins.OnChange(func(v origins.View) {
		s.events.publish(wire.EventOrigins, v)
	})
	s.dec.control, s.dec.pilot, s.dec.approvals, s.dec.origins, s.dec.reads = s.control, s.pilot, s.approvals, s.origins, s.reads
	s.dec.restore()
	s.openHistory()
	s.applyApprovalFlag()
	s.token = &humanToken{value: newToken(), file: cfg.TokenFile, log: cfg.Log, trail: s.trail}
	s.token.write()
	s.store.Subscribe(s.maps.publishEntry)
	s.an = newAnalysis(s.store, s.page, s.perf.Latest, cfg.Clock, s.maps.locate)
	s.an.replay = func(ctx context.Context) (any, error) { // as interact replays: the session's tab, its owner's check
		return s.interact(ctx, "replay", args{"tab_id": float64(s.tabs.sessionTab(ctx))})
	}
	s.gen = &generator{store: s.store, perf: s.perf, page: s.page, an: s.an, maps: s.maps, trail: s.trail, version: cfg.Version, harDir: cfg.HARDir}
	s.store.Subscribe(s.streams.observe)
	s.store.Subscribe(s.maps.prefetch)
	s.mcp = s.newMCP()
	s.in.batches = map[string]storeFunc{
		"/logs":             storeBatch(s, "entries", sequenced(s, "log", s.filtered.divert(s.store.AddLogs))),
		"/network":          storeBatch(s, "entries", sequenced(s, "network", s.store.AddNetwork)),
		"/network-bodies":   storeBatch(s, "bodies", sequenced(s, "", s.store.AddBodies)),
		"/websocket-events": storeBatch(s, "events", sequenced(s, "ws", s.store.AddWSEvents)),
		"/actions":          storeBatch(s, "actions", sequenced(s, "action", s.acts.markAILoads(s.store.AddActions))),
		"/performance":      storeBatch(s, "entries", s.perf.add),
	}
	return s
}

// Control exposes capture control (the dashboard's veto, tests).
func (s *Server) Control() *capturectl.Controller { return s.control.Controller }

// Store exposes the capture state (tests and in-process wiring).
func (s *Server) Store() *capture.Store { return s.store }

// Port is the TCP port the server listens on, once Serve was called.
func (s *Server) Port() int { return int(s.port.Load()) }

// Handler is every HTTP route behind the security guard.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for route, store := range s.in.batches {
		mux.HandleFunc("POST "+route, s.ingest(store))
	}
	// The extension polls with POST, the only method on which Chrome sends
	// its Origin; GET stays for reading the settings.
	mux.HandleFunc("GET /settings", s.handleSettings)
	mux.HandleFunc("POST /settings", s.handleSettings)
	mux.HandleFunc("GET /health", s.handleHealth)
	mux.HandleFunc("GET /mcp/ws", s.handleMCPWebSocket)
	mux.HandleFunc("GET /ws/extension", s.handleExtensionSocket)
	mux.HandleFunc("GET /pending-queries", s.handlePendingQueries)
	mux.HandleFunc("POST /pending-queries", s.handlePendingQueries)
	mux.HandleFunc("POST /query-results", s.handleQueryResults)
	mux.HandleFunc("GET /events/stream", s.handleEventStream)
	// Each capability registers its own routes.
	rt := routes{mux: mux, guard: s.token.human}
	for _, c := range []routed{
		s.tracked, s.pilot, s.origins, s.control, s.dec, s.tabs, s.pointed, s.reads, s.approvals, s.replays,
		&errorShots{dir: s.shots, store: s.store},
	} {
		c.routes(rt)
	}
	return s.guard(s.noteContact(mux))
}

// Serve runs the HTTP server on ln until ctx ends, then shuts down
// gracefully. Every goroutine it starts ends before it returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.port.Store(int32(ln.Addr().(*net.TCPAddr).Port))
	if s.trail.log != nil && s.cfg.Port == 0 {
		s.trail.log.SetPort(s.Port())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Every plain request is bounded in time, so an idle or trickling peer
	// gives its connection back; long-lived streams lift these limits for
	// themselves and ping instead.
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.limits.header,
		ReadTimeout:       s.limits.read,
		WriteTimeout:      s.limits.write,
		IdleTimeout:       s.limits.idle,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve http: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		shutCtx, done := context.WithTimeout(context.Background(), 3*time.Second)
		defer done()
		if err := hs.Shutdown(shutCtx); errors.Is(err, context.DeadlineExceeded) {
			// A client that holds a connection open past the grace period
			// must not keep the port, or make exiting fail.
			return hs.Close()
		} else if err != nil {
			return fmt.Errorf("shut down http: %w", err)
		}
		return nil
	})
	g.Go(func() error { s.reportExtension(gctx); return nil })
	err := g.Wait()
	s.closeHistory()
	s.streams.end()
	// Overrides are session-scoped: they end with the server, on the record.
	s.control.EndSession()
	// Rules die with the server: each says so before the log closes.
	s.approvals.rules.Stop()
	s.trail.write(audit.Event{Event: "server_stop", Source: "server"})
	if s.trail.log != nil {
		s.trail.log.Close()
	}
	return err
}

// MCP is the server's MCP tool surface, for in-process clients.
func (s *Server) MCP() *server.MCPServer { return s.mcp }
