package server

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/streaming"
)

// auditConfigure writes the lines capture control does not: every
// streaming call and every refused configure call, whatever refused them,
// and every clear. Accepted capture changes and resets are capture
// control's own lines.
func (s *Server) auditConfigure(ctx context.Context, a args, v any, err error) {
	action, _ := a["action"].(string)
	ev := audit.Event{Action: action, Source: "ai", Agent: agent(ctx)}
	switch {
	case action == "streaming":
		ev.Event, ev.Action = "configure_streaming", ""
		if err != nil {
			ev.Error = problem.From(err).Error()
		} else if cfg, ok := v.(streaming.Config); ok {
			ev.Result = streamLine(cfg)
		}
	case err != nil:
		p := problem.From(err)
		ev.Event, ev.Result, ev.Error, ev.Reason = "configure_refused", "refused", string(p.Code), p.Message
		switch v := a[settingsParam.name].(type) {
		case map[string]any:
			ev.Setting = strings.Join(slices.Sorted(maps.Keys(v)), ",")
		case string:
			ev.Setting = v
		}
	case action == "clear":
		ev.Event, ev.Result = "buffers_cleared", "ok"
		ev.Name = bufferParam.get(a)
		if ev.Name == "" {
			ev.Name = "all"
		}
	default:
		return
	}
	s.audit(ev)
}

// auditInteract writes one line per interact call, run or refused: the
// action, its target, a script's digest, and how it ended.
func (s *Server) auditInteract(ctx context.Context, a args, _ any, err error) {
	action, _ := a["action"].(string)
	sel, _ := a[highlightParam.name].(string)
	name, _ := a[snapshotParam.name].(string)
	ev := audit.Event{Event: "pilot_action", Action: action, Selector: sel, Name: name, Source: "ai", Agent: agent(ctx), Result: "ok"}
	if script, _ := a[scriptParam.name].(string); script != "" {
		ev.SHA256, ev.Script = pilot.ScriptDigest(script)
	}
	if err != nil {
		ev.Result, ev.Error = "error", string(problem.From(err).Code)
	}
	s.audit(ev)
}
