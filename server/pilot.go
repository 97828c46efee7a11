package server

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/query"
)

// PilotStatus is the pilot's state as every surface reports it.
func (s *Server) PilotStatus() pilot.Status { return s.pilot.Status(s.queries.Reachable()) }

func (s *Server) handlePilotStatus(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.PilotStatus())
}

// handlePilotBlock is the human's block from the dashboard. It can only
// take the pilot away from the AI: enabling is the popup's alone.
func (s *Server) handlePilotBlock(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Blocked *bool `json:"blocked"`
	}
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if req.Blocked == nil {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"blocked": true|false}`))
		return
	}
	s.pilot.SetBlocked(*req.Blocked)
	ev := "pilot_unblocked"
	if *req.Blocked {
		ev = "pilot_blocked"
	}
	s.audit(audit.Event{Event: ev, Source: "human", Agent: "human"})
	st := s.PilotStatus()
	s.events.publish("pilot", st)
	writeJSON(w, http.StatusOK, st)
}

// notePilot records the toggle state the extension reports on a poll
// (?pilot=true|false). Only the extension's own origin is believed; and the
// extension refuses pilot actions on its own while its toggle is off.
func (s *Server) notePilot(r *http.Request) {
	if r.Header.Get("Origin") != ExtensionOrigin {
		return
	}
	switch r.URL.Query().Get("pilot") {
	case "true":
		s.pilot.Report(true)
	case "false":
		s.pilot.Report(false)
	default:
		s.pilot.Touch()
	}
}

func (s *Server) audit(e audit.Event) {
	if s.auditor != nil {
		_ = s.auditor.Write(e)
	}
}

func interactTool() mcp.Tool {
	return mcp.NewTool("interact",
		mcp.WithDescription("AI Web Pilot: act on the developer's tab. Refused unless the human enabled it in the extension popup. "+
			"highlight: outline selector; save/load/list/delete_state: localStorage, sessionStorage, cookies, URL; execute_js: run script in the page."),
		mcp.WithDestructiveHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithString("action", mcp.Required(), mcp.Enum("highlight", "save_state", "load_state", "list_states", "delete_state", "execute_js")),
		mcp.WithString("selector", mcp.Description("highlight: CSS selector")),
		mcp.WithInteger("duration_ms", mcp.Description("highlight: default 5000"), mcp.Min(1), mcp.Max(pilot.MaxHighlightMS)),
		mcp.WithString("snapshot_name", mcp.Description("*_state: name"), mcp.MaxLength(pilot.MaxSnapshotName)),
		mcp.WithBoolean("include_url", mcp.Description("save/load_state: the URL too (default true)")),
		mcp.WithString("script", mcp.Description("execute_js: JavaScript; its value (or awaited promise) is returned")),
		mcp.WithInteger("timeout_ms", mcp.Description("execute_js: default 5000"), mcp.Min(1), mcp.Max(pilot.MaxScriptMS)),
		mcp.WithInteger("tab_id", mcp.Description("Act on this tab instead")),
	)
}

func (s *Server) interactModes() []mode {
	var modes []mode
	for _, a := range []string{"highlight", "save_state", "load_state", "list_states", "delete_state", "execute_js"} {
		modes = append(modes, mode{a, func(ctx context.Context, args args) (any, error) { return s.interact(ctx, a, args) }})
	}
	return modes
}

func (s *Server) interact(ctx context.Context, action string, a args) (any, error) {
	p := pilot.Action{Name: action}
	var errs [7]error
	p.Selector, errs[0] = a.str("selector")
	p.DurationMS, errs[1] = a.int("duration_ms", 1, pilot.MaxHighlightMS)
	p.SnapshotName, errs[2] = a.str("snapshot_name")
	p.Script, errs[3] = a.str("script")
	p.TimeoutMS, errs[4] = a.int("timeout_ms", 1, pilot.MaxScriptMS)
	tab, err := a.int("tab_id", 0, 1<<31-1)
	errs[5] = err
	if _, ok := a["include_url"]; ok {
		b, err := a.bool("include_url")
		p.IncludeURL, errs[6] = &b, err
	}
	if err := firstErr(errs[:]...); err != nil {
		return nil, err
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	ev := audit.Event{Event: "pilot_action", Action: p.Name, Selector: p.Selector, Name: p.SnapshotName, Source: "ai", Agent: agent(ctx)}
	if p.Name == "execute_js" {
		ev.SHA256, ev.Script = pilot.ScriptDigest(p.Script)
	}
	res, err := s.runPilot(ctx, tab, p)
	if err != nil {
		ev.Result, ev.Error = "error", string(problem.From(err).Code)
	} else {
		ev.Result = "ok"
	}
	s.audit(ev)
	return res, err
}

func (s *Server) runPilot(ctx context.Context, tab int, p pilot.Action) (any, error) {
	if err := s.pilot.Check(s.queries.Reachable()); err != nil {
		return nil, err
	}
	timeout := p.Timeout()
	resp, err := s.queries.Ask(ctx, query.KindPilot, tab, p, timeout)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(resp.Result, &out); err != nil {
		return nil, problem.New(problem.Internal, "the extension's answer could not be read: %v", err)
	}
	if resp.Tab != 0 {
		out["tab"] = resp.Tab
	}
	return out, nil
}
