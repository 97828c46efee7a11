package server

import (
	"context"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
)

var observeModes = []string{"logs", "errors", "network", "network_bodies", "websocket_events",
	"websocket_status", "actions", "page", "pilot", "health"}

func observeTool() mcp.Tool {
	return mcp.NewTool("observe",
		mcp.WithDescription("Read what the developer's browser tab captured, newest first. "+
			"Pass a result's cursor back as `after` to get only what is new."),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithString("what", mcp.Required(), mcp.Enum(observeModes...)),
		mcp.WithInteger("limit", mcp.Description("Max entries (default 50; network_bodies 20)"), mcp.Min(1), mcp.Max(capture.MaxLimit)),
		mcp.WithInteger("after", mcp.Description("Cursor from an earlier result")),
		mcp.WithString("url_filter", mcp.Description("URL substring (page URL for logs, errors, actions)")),
		mcp.WithString("level", mcp.Description("logs: minimum level"), mcp.Enum("debug", "log", "info", "warn", "error")),
		mcp.WithString("method", mcp.Description("network*: HTTP method")),
		mcp.WithInteger("status_min", mcp.Description("network*: min status")),
		mcp.WithInteger("status_max", mcp.Description("network*: max status")),
		mcp.WithString("connection_id", mcp.Description("websocket_*: one connection")),
		mcp.WithString("direction", mcp.Enum("incoming", "outgoing")),
		mcp.WithInteger("tab_id", mcp.Description("Only this tab")),
	)
}

// captureQuery parses the filters every buffer read shares.
func captureQuery(a args) (capture.Query, error) {
	var q capture.Query
	var errs [10]error
	q.Limit, errs[0] = a.int("limit", 1, capture.MaxLimit)
	q.After, errs[1] = a.uint("after")
	q.URL, errs[2] = a.str("url_filter")
	q.Level, errs[3] = a.enum("level", "debug", "log", "info", "warn", "error")
	q.Method, errs[4] = a.str("method")
	q.StatusMin, errs[5] = a.int("status_min", 0, 999)
	q.StatusMax, errs[6] = a.int("status_max", 0, 999)
	q.ConnectionID, errs[7] = a.str("connection_id")
	q.Direction, errs[8] = a.enum("direction", "incoming", "outgoing")
	q.TabID, errs[9] = a.int("tab_id", 0, 1<<31-1)
	if err := firstErr(errs[:]...); err != nil {
		return q, err
	}
	if q.StatusMax != 0 && q.StatusMin > q.StatusMax {
		return q, problem.New(problem.InvalidParam, "status_min %d is above status_max %d", q.StatusMin, q.StatusMax)
	}
	return q, nil
}

// read adapts a buffer read to a mode handler.
func read[T any, P interface {
	*T
	Where() (*int, *string)
}](get func(capture.Query) capture.Result[T]) func(context.Context, args) (any, error) {
	return func(_ context.Context, a args) (any, error) {
		q, err := captureQuery(a)
		if err != nil {
			return nil, err
		}
		return render[T, P](get(q)), nil
	}
}

func (s *Server) observeModes() []mode {
	modes := []mode{
		{"logs", read(s.store.Logs)},
		{"errors", read(s.store.Errors)},
		{"network", read(s.store.Network)},
		{"network_bodies", read(s.store.Bodies)},
		{"websocket_events", read(s.store.WSEvents)},
		{"websocket_status", s.observeWSStatus},
		{"actions", read(s.store.Actions)},
		{"page", s.observePage},
		{"pilot", func(context.Context, args) (any, error) { return s.PilotStatus(), nil }},
		{"health", func(context.Context, args) (any, error) { return s.Health(), nil }},
	}
	// Alerts about capture changes ride along with whatever the AI observes next.
	for i, m := range modes {
		run := m.run
		modes[i].run = func(ctx context.Context, a args) (any, error) {
			v, err := run(ctx, a)
			if err != nil {
				return nil, err
			}
			return s.withAlerts(ctx, v)
		}
	}
	return modes
}

func (s *Server) observeWSStatus(_ context.Context, a args) (any, error) {
	q, err := captureQuery(a)
	if err != nil {
		return nil, err
	}
	conns := s.store.WSConnections(q)
	return struct {
		Count       int                    `json:"count"`
		Connections []capture.WSConnection `json:"connections,omitempty"`
	}{len(conns), conns}, nil
}

func (s *Server) observePage(context.Context, args) (any, error) {
	p, ok := s.store.Page()
	connected, _ := s.ExtensionConnected()
	st := s.control.State()
	overrides := make(map[string]pageOverride, len(st.Overrides))
	for k, o := range st.Overrides {
		overrides[k] = pageOverride{o.Value, o.Default, o.ChangedAt.UTC().Format(capture.TimeLayout)}
	}
	var revoked []string
	for k := range st.Revoked {
		revoked = append(revoked, k)
	}
	slices.Sort(revoked)
	if !ok {
		return struct {
			Tracked   bool                    `json:"tracked"`
			Connected bool                    `json:"extension_connected"`
			Hint      string                  `json:"hint"`
			Overrides map[string]pageOverride `json:"capture_overrides,omitempty"`
			Revoked   []string                `json:"revoked_by_user,omitempty"`
		}{false, connected, "No tab reported yet: the human should install the Gasoline extension and open the page.", overrides, revoked}, nil
	}
	return struct {
		capture.Page
		Connected bool                    `json:"extension_connected"`
		Overrides map[string]pageOverride `json:"capture_overrides,omitempty"`
		Revoked   []string                `json:"revoked_by_user,omitempty"`
	}{p, connected, overrides, revoked}, nil
}

// pageOverride is one active AI override as observe{what:"page"} shows it.
type pageOverride struct {
	Value     any    `json:"value"`
	Default   any    `json:"default"`
	ChangedAt string `json:"changed_at"`
}
