package server

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// instructions is the server's one-paragraph introduction to an AI client.
const instructions = "Gasoline shows what the developer's Chrome tab is doing: console, errors, network, " +
	"WebSocket traffic and user actions. Use observe after changing code instead of asking the human what they see."

// mode is one value of a tool's selector parameter and its handler.
type mode struct {
	name string
	run  func(ctx context.Context, a args) (any, error)
}

// tool is one MCP tool, declared once: tools/list shows its schema and
// calls are checked against the same declaration. The selector's values
// are the names of its modes.
type tool struct {
	name, desc string
	hints      []mcp.ToolOption
	selector   param[string]
	params     []declared
	modes      []mode
	// audit, when set, is told of every call of a tool that changes
	// state, accepted (err nil) or refused, whatever refused it.
	audit func(ctx context.Context, a args, v any, err error)
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

// specs lists the selector, complete with its values, then the parameters.
func (t tool) specs() []spec {
	names := make([]string, len(t.modes))
	for i, m := range t.modes {
		names[i] = m.name
	}
	out := []spec{t.selector.oneOf(names...).require().spec}
	for _, p := range t.params {
		out = append(out, p.decl())
	}
	return out
}

// schema is the tool as tools/list shows it.
func (t tool) schema() mcp.Tool {
	opts := append([]mcp.ToolOption{mcp.WithDescription(t.desc)}, t.hints...)
	for _, p := range t.specs() {
		opts = append(opts, p.option())
	}
	return mcp.NewTool(t.name, opts...)
}

func (s *Server) newMCP() *server.MCPServer {
	// Every session reads capture alerts from where it joined.
	hooks := &server.Hooks{}
	hooks.AddOnRegisterSession(func(_ context.Context, c server.ClientSession) {
		s.alertMu.Lock()
		defer s.alertMu.Unlock()
		s.alertCursors[c.SessionID()] = s.control.AlertCursor()
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, c server.ClientSession) {
		s.alertMu.Lock()
		defer s.alertMu.Unlock()
		delete(s.alertCursors, c.SessionID())
		delete(s.bootSeen, c.SessionID())
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, c server.ClientSession) { s.streams.end(c.SessionID()) })
	m := server.NewMCPServer(Service, s.cfg.Version,
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions),
		server.WithHooks(hooks),
		server.WithToolHandlerMiddleware(s.recordReads),
	)
	for _, t := range []tool{s.observeTool(), s.analyzeTool(), s.generateTool(), s.configureTool(), s.interactTool()} {
		addTool(m, withReads(t))
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
	return byName[t.selector.get(a)].run(ctx, a)
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
