package server

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// instructions is the server's one-paragraph introduction to an AI client.
const instructions = "Gasoline shows what the developer's Chrome tab is doing: console, errors, network, " +
	"WebSocket traffic and user actions. Use observe after changing code instead of asking the human what they see."

// mode is one value of a tool's selector parameter: what it does in a few
// words, the parameters its handler reads, and the handler.
type mode struct {
	name  string
	about string
	reads []declared
	run   func(ctx context.Context, a args) (any, error)
}

// tool is one MCP tool, declared once: tools/list shows its schema and
// calls are checked against the same declaration. The selector's values
// are the names of its modes; its parameters are those its modes read, and
// the selector's description says which mode reads which.
type tool struct {
	name, desc string
	hints      []mcp.ToolOption
	selector   param[string]
	modes      []mode
	// audit, when set, is told of every call of a tool that changes
	// state, accepted (err nil) or refused, whatever refused it.
	audit func(ctx context.Context, a args, v any, err error)
	// scope, when set, is the calling session's tab: a mode that reads
	// tab_id and was given none reads that one.
	scope func(ctx context.Context) int
}

// with is base and more: the parameters of a mode that reads what others
// read and more.
func with(base []declared, more ...declared) []declared {
	return append(slices.Clip(base), more...)
}

// readOnly are the hints of a tool that changes nothing.
var readOnly = []mcp.ToolOption{
	mcp.WithReadOnlyHintAnnotation(true),
	mcp.WithDestructiveHintAnnotation(false),
	mcp.WithOpenWorldHintAnnotation(false),
}

// additive are the hints of a tool that only adds to the server's own
// state (verification sessions, named snapshots, archives under
// ~/.gasoline) and never changes the page or what was captured.
var additive = []mcp.ToolOption{
	mcp.WithReadOnlyHintAnnotation(false),
	mcp.WithDestructiveHintAnnotation(false),
	mcp.WithOpenWorldHintAnnotation(false),
}

// specs lists the selector, complete with its values and what each mode
// reads, then the parameters, each once, as the first mode to read it
// declared it.
func (t tool) specs() []spec {
	names := make([]string, len(t.modes))
	for i, m := range t.modes {
		names[i] = m.name
	}
	out := []spec{t.selector.oneOf(names...).describe(t.modesText()).require().spec}
	seen := make(map[string]bool)
	for _, m := range t.modes {
		for _, p := range m.reads {
			if d := p.decl(); !seen[d.name] {
				seen[d.name] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// modesText says per mode what it does and which parameters it reads,
// densely: "dom(selector tab_id): matching elements; page". Modes that read
// the same and say the same share an entry; a mode that reads nothing and
// says nothing is left out.
func (t tool) modesText() string {
	var keys []string
	modes := make(map[string][]string)
	common := t.commonReads()
	for _, m := range t.modes {
		key := ""
		var names []string
		for _, p := range m.reads {
			if n := p.decl().name; !common[n] {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			key = "(" + strings.Join(names, " ") + ")"
		}
		if m.about != "" {
			key += ": " + m.about
		}
		if key == "" {
			continue
		}
		if modes[key] == nil {
			keys = append(keys, key)
		}
		modes[key] = append(modes[key], m.name)
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strings.Join(modes[k], ",") + k
	}
	return strings.Join(parts, "; ")
}

// tools are the five tools, in tools/list's order.
func (s *Server) tools() []tool {
	return []tool{s.observeTool(), s.analyzeTool(), s.generateTool(), s.configureTool(), s.interactTool()}
}

// toolNamed is one of the tools.
func (s *Server) toolNamed(name string) tool {
	for _, t := range s.tools() {
		if t.name == name {
			return t
		}
	}
	return tool{}
}

// commonReads are the parameters every mode of a tool reads: listed once,
// not in each mode's entry (their own description says so).
func (t tool) commonReads() map[string]bool {
	if len(t.modes) < 2 {
		return nil
	}
	count := make(map[string]int)
	for _, m := range t.modes {
		for _, p := range m.reads {
			count[p.decl().name]++
		}
	}
	out := make(map[string]bool)
	for n, c := range count {
		if c == len(t.modes) {
			out[n] = true
		}
	}
	return out
}

// schema is the tool as tools/list shows it.
func (t tool) schema() mcp.Tool {
	opts := append([]mcp.ToolOption{mcp.WithDescription(t.desc)}, t.hints...)
	for _, p := range t.specs() {
		opts = append(opts, p.option())
	}
	tl := mcp.NewTool(t.name, opts...)
	// A hint at the value the MCP spec gives it when absent says nothing.
	an := &tl.Annotations
	for _, h := range []struct {
		hint **bool
		def  bool
	}{{&an.ReadOnlyHint, false}, {&an.DestructiveHint, true}, {&an.IdempotentHint, false}, {&an.OpenWorldHint, true}} {
		if *h.hint != nil && **h.hint == h.def {
			*h.hint = nil
		}
	}
	return tl
}

func (s *Server) newMCP() *server.MCPServer {
	// Every session reads capture alerts from where it joined.
	hooks := &server.Hooks{}
	hooks.AddOnRegisterSession(func(_ context.Context, c server.ClientSession) {
		s.alerts.join(c.SessionID(), s.control.AlertCursor())
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, c server.ClientSession) { s.alerts.leave(c.SessionID()) })
	hooks.AddOnUnregisterSession(func(_ context.Context, c server.ClientSession) { s.streams.end(c.SessionID()) })
	hooks.AddOnUnregisterSession(func(_ context.Context, c server.ClientSession) { s.pointed.Forget(c.SessionID()) })
	m := server.NewMCPServer(Service, s.cfg.Version,
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions),
		server.WithHooks(hooks),
		server.WithToolHandlerMiddleware(s.reads.record),
	)
	for _, t := range s.tools() {
		addTool(m, t)
	}
	return m
}

// addTool registers t: a call's arguments are checked against every
// declared parameter, then its selector picks the mode that runs.
func addTool(m *server.MCPServer, t tool) {
	specs := t.specs()
	byName := make(map[string]mode, len(t.modes))
	for _, md := range t.modes {
		byName[md.name] = md
	}
	m.AddTool(t.schema(), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
			ctx = context.WithValue(ctx, progressKey{}, req.Params.Meta.ProgressToken)
		}
		a := args(req.GetArguments())
		v, err := t.call(ctx, specs, byName, a)
		noteAnswer(ctx, v, err)
		if t.audit != nil {
			t.audit(ctx, a, v, err)
		}
		if err != nil {
			return toolError(err), nil
		}
		if r, ok := v.(*mcp.CallToolResult); ok {
			return r, nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(string(b)), nil
	})
}

// call checks a's parameters, then runs the selected mode.
func (t tool) call(ctx context.Context, specs []spec, byName map[string]mode, a args) (any, error) {
	for _, p := range specs {
		if err := p.check(a); err != nil {
			return nil, err
		}
	}
	m := byName[t.selector.get(a)]
	if err := t.unread(specs, m, a); err != nil {
		return nil, err
	}
	if t.scope != nil && tabParam.get(a) == 0 && slices.ContainsFunc(m.reads, func(d declared) bool { return d.decl().name == tabParam.name }) {
		if tab := t.scope(ctx); tab != 0 {
			a[tabParam.name] = float64(tab)
		}
	}
	return m.run(ctx, a)
}

// toolError is a failure the AI can act on: isError with a stable code.
func toolError(err error) *mcp.CallToolResult {
	b, _ := json.Marshal(problem.From(err))
	r := mcp.NewToolResultText(string(b))
	r.IsError = true
	return r
}

// agent names the MCP client calling a tool, for the audit log.
func agent(ctx context.Context) string {
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		if n := s.GetClientInfo().Name; n != "" {
			return n
		}
	}
	return "unknown"
}

type progressKey struct{}

// progress sends notifications/progress when the caller asked for them
// (a progressToken in the request's _meta); otherwise it does nothing.
func progress(ctx context.Context, done, total float64, msg string) {
	token := ctx.Value(progressKey{})
	srv := server.ServerFromContext(ctx)
	if token == nil || srv == nil {
		return
	}
	_ = srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
		"progressToken": token, "progress": done, "total": total, "message": msg,
	})
}
