package server

import (
	"context"
	"slices"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// The filters every buffer read shares.
var (
	limitParam     = newParam[int]("limit", "default 50; network_bodies 20").between(1, capture.MaxLimit)
	afterParam     = newParam[uint64]("after", "")
	urlParam       = newParam[string]("url_filter", "URL substring (page URL for logs, errors, actions)")
	levelParam     = newParam[string]("level", "minimum level").oneOf(capture.Levels...)
	methodParam    = newParam[string]("method", "")
	statusMinParam = newParam[int]("status_min", "").between(0, 999)
	statusMaxParam = newParam[int]("status_max", "").between(0, 999)
	connParam      = newParam[string]("connection_id", "")
	directionParam = newParam[string]("direction", "").oneOf(capture.Directions...)
	tabParam       = newParam[int]("tab_id", "").atLeast(0)
)

func (s *Server) observeTool() tool {
	return tool{
		name:     "observe",
		desc:     "What the developer's tabs captured, newest first; a cursor as `after` gets only what is new.",
		hints:    readOnly,
		selector: newParam[string]("what", ""),
		scope:    s.tabs.sessionTab,
		modes:    s.observeModes(),
	}
}

// captureQuery reads the filters every buffer read shares.
func captureQuery(a args) (capture.Query, error) {
	q := capture.Query{
		Limit:        limitParam.get(a),
		After:        afterParam.get(a),
		URL:          urlParam.get(a),
		Level:        levelParam.get(a),
		Method:       methodParam.get(a),
		StatusMin:    statusMinParam.get(a),
		StatusMax:    statusMaxParam.get(a),
		ConnectionID: connParam.get(a),
		Direction:    directionParam.get(a),
		TabID:        tabParam.get(a),
	}
	if q.StatusMax != 0 && q.StatusMin > q.StatusMax {
		return q, problem.New(problem.InvalidParam, "status_min %d is above status_max %d", q.StatusMin, q.StatusMax)
	}
	return q, nil
}

// read adapts a buffer read to a mode handler.
func read[T any, P entry[T]](get func(capture.Query) capture.Result[T]) func(context.Context, args) (any, error) {
	return func(_ context.Context, a args) (any, error) {
		q, err := captureQuery(a)
		if err != nil {
			return nil, err
		}
		return render[T, P](get(q))
	}
}

func (s *Server) observeModes() []mode {
	buffer := []declared{limitParam, afterParam, urlParam, tabParam}
	http := with(buffer, methodParam, statusMinParam, statusMaxParam)
	modes := []mode{
		{"logs", "", with(buffer, levelParam), s.afterHeld(s.maps.readStacks(s.store.Logs, true))},
		{"errors", "", buffer, s.afterHeld(s.maps.readStacks(s.store.Errors, false))},
		{"network", "", http, s.afterHeld(read(s.store.Network))},
		{"network_bodies", "", http, s.afterHeld(read(s.store.Bodies))},
		{"websocket_events", "", with(buffer, connParam, directionParam), s.afterHeld(read(s.store.WSEvents))},
		{"websocket_status", "", []declared{urlParam, tabParam, connParam}, s.afterHeld(readWSStatus(s.store))},
		{"actions", "", buffer, s.afterHeld(read(s.store.Actions))},
		{"page", "", nil, s.observePage},
		{"performance", "", []declared{limitParam, urlParam}, s.afterHeld(s.perf.observe)},
		{"pilot", "", nil, func(context.Context, args) (any, error) {
			return &struct {
				riders
				pilot.Status
			}{Status: s.PilotStatus()}, nil
		}},
		{"health", "", nil, func(context.Context, args) (any, error) {
			return &struct {
				riders
				Health
			}{Health: s.Health()}, nil
		}},
		{"pointed", "what the human pointed at, and why", nil, s.pointed.observe},
		{"storage", "", []declared{includeValuesParam, tabParam}, storageReader{s.queries}.observe},
	}
	for i, m := range modes {
		modes[i].run = s.riding(m.name, m.run)
	}
	return modes
}

// readWSStatus adapts the store's WebSocket connections to a mode handler.
func readWSStatus(store *capture.Store) func(context.Context, args) (any, error) {
	return func(_ context.Context, a args) (any, error) {
		q, err := captureQuery(a)
		if err != nil {
			return nil, err
		}
		conns := store.WSConnections(q)
		return &struct {
			riders
			Count       int                    `json:"count"`
			Connections []capture.WSConnection `json:"connections,omitempty"`
		}{Count: len(conns), Connections: conns}, nil
	}
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
		return &struct {
			riders
			Tracked   bool                    `json:"tracked"`
			Connected bool                    `json:"extension_connected"`
			Hint      string                  `json:"hint"`
			Overrides map[string]pageOverride `json:"capture_overrides,omitempty"`
			Revoked   []string                `json:"revoked_by_user,omitempty"`
		}{riders{}, false, connected, "No tab reported yet: the human should install the Gasoline extension and open the page.", overrides, revoked}, nil
	}
	return &struct {
		riders
		capture.Page
		Connected bool                    `json:"extension_connected"`
		Overrides map[string]pageOverride `json:"capture_overrides,omitempty"`
		Revoked   []string                `json:"revoked_by_user,omitempty"`
	}{riders{}, p, connected, overrides, revoked}, nil
}

// pageOverride is one active AI override as observe{what:"page"} shows it.
type pageOverride struct {
	Value     any    `json:"value"`
	Default   any    `json:"default"`
	ChangedAt string `json:"changed_at"`
}

// heldWait bounds how long a read waits for the events an extension holds
// back: past it, the AI reads what is stored.
const heldWait = time.Second

// afterHeld runs a mode that reads what was captured once every extension
// that said it holds events back (its flush waits for a busy page to go
// quiet) has delivered them, so that the AI reads everything captured up
// to its call.
func (s *Server) afterHeld(run func(context.Context, args) (any, error)) func(context.Context, args) (any, error) {
	return func(ctx context.Context, a args) (any, error) {
		s.queries.AskHeld(ctx, heldWait)
		return run(ctx, a)
	}
}
