package server

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gasoline-dev/gasoline/features/apicontract"
	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/streaming"
)

// auditTrail writes every capability's lines to the audit file
// (features/audit); with none configured it writes nothing.
type auditTrail struct{ log *audit.Log }

func (t *auditTrail) write(e audit.Event) {
	if t.log != nil {
		_ = t.log.Write(e)
	}
}

// configure writes the lines capture control does not: every
// streaming call and every refused configure call, whatever refused them,
// and every clear. Accepted capture changes and resets are capture
// control's own lines.
func (t *auditTrail) configure(ctx context.Context, a args, v any, err error) {
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
	t.write(ev)
}

// interact writes one line per interact call, run or refused: the
// action, its target, a script's digest, and how it ended.
func (t *auditTrail) interact(ctx context.Context, a args, _ any, err error) {
	action, _ := a["action"].(string)
	sel, _ := a[highlightParam.name].(string)
	if pilot.IsAct(action) {
		sel = actionOf(action, a).Target()
	}
	name, _ := a[snapshotParam.name].(string)
	ev := audit.Event{Event: "pilot_action", Action: action, Selector: sel, Name: name, Source: "ai", Agent: agent(ctx), Result: "ok"}
	ev.Tab = actTabParam.get(a) // the session's own tab, where it has one
	if script, _ := a[scriptParam.name].(string); script != "" {
		ev.SHA256, ev.Script = pilot.ScriptDigest(script)
	}
	if err != nil {
		ev.Result, ev.Error = "error", string(problem.From(err).Code)
	}
	t.write(ev)
}

// audited writes each call of an analysis mode to the audit log, so the
// dashboard shows what the AI looked at: the mode, its action, and the
// result in one line (or the error's code).
func (t *auditTrail) audited(target string, run func(context.Context, args) (any, error)) func(context.Context, args) (any, error) {
	return func(ctx context.Context, a args) (any, error) {
		v, err := run(ctx, a)
		action := target
		if act := actionParam.get(a); act != "" {
			action += " " + act
		}
		var line string
		switch r := v.(type) {
		case interface{ Line() string }:
			line = r.Line()
		case interface{ Brief() string }:
			line = r.Brief()
		case apicontract.Report:
			line = fmt.Sprintf("%d endpoints tracked", len(r.Endpoints))
		}
		t.mode(ctx, "analyze", action, line, err)
		return v, err
	}
}

// mode writes the audit line of one AI call of a mode: the tool, the
// mode (and its action), what it found in one line, or the error's code.
func (t *auditTrail) mode(ctx context.Context, tool, mode, result string, err error) {
	ev := audit.Event{Event: tool, Action: mode, Result: result, Source: "ai", Agent: agent(ctx)}
	if err != nil {
		ev.Result, ev.Error = "error", string(problem.From(err).Code)
	}
	t.write(ev)
}
