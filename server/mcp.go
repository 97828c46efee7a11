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
	})
	m := server.NewMCPServer(Service, s.cfg.Version,
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions),
		server.WithHooks(hooks),
	)
	s.addTool(m, observeTool(), "what", s.observeModes())
	s.addTool(m, analyzeTool(), "target", s.analyzeModes())
	s.addTool(m, generateTool(), "format", s.generateModes())
	s.addTool(m, configureTool(), "action", s.configureModes())
	s.addTool(m, interactTool(), "action", s.interactModes())
	return m
}

// addTool registers a tool whose selector parameter picks one of modes.
func (s *Server) addTool(m *server.MCPServer, t mcp.Tool, selector string, modes []mode) {
	byName := make(map[string]mode, len(modes))
	names := make([]string, len(modes))
	for i, md := range modes {
		byName[md.name] = md
		names[i] = md.name
	}
	m.AddTool(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
			ctx = context.WithValue(ctx, progressKey{}, req.Params.Meta.ProgressToken)
		}
		a := args(req.GetArguments())
		name, err := a.enum(selector, names...)
		if err == nil && name == "" {
			err = problem.New(problem.InvalidParam, "%s is required", selector)
		}
		if err != nil {
			return toolError(err), nil
		}
		v, err := byName[name].run(ctx, a)
		if err != nil {
			return toolError(err), nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(string(b)), nil
	})
}

// toolError is a failure the AI can act on: isError with a stable code.
func toolError(err error) *mcp.CallToolResult {
	b, _ := json.Marshal(problem.From(err))
	r := mcp.NewToolResultText(string(b))
	r.IsError = true
	return r
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
