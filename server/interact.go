package server

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/pilot"
)

// The parameters of the pilot's actions.
var (
	highlightParam     = newParam[string]("selector", "")
	durationParam      = newParam[int]("duration_ms", "default 5000").between(1, pilot.MaxHighlightMS)
	snapshotParam      = newParam[string]("snapshot_name", "").maxLen(pilot.MaxSnapshotName)
	includeURLParam    = newParam[bool]("include_url", "default true")
	scriptParam        = newParam[string]("script", "JavaScript; returns its (awaited) value")
	scriptTimeoutParam = newParam[int]("timeout_ms", "default 5000").between(1, pilot.MaxScriptMS)
	actTabParam        = tabParam.describe("every action")
	textParam          = newParam[string]("text", "visible text or name; type: to type")
	refParam           = newParam[string]("ref", "from analyze interactive")
	navURLParam        = newParam[string]("url", "")
	clearParam         = newParam[bool]("clear", "default true")
	submitParam        = newParam[bool]("submit", "Enter after")
	keyParam           = newParam[string]("key", "e.g. Enter, Control+a")
	valueParam         = newParam[string]("value", "option value/label")
	toParam            = newParam[string]("to", "").oneOf("top", "bottom")
	stateParam         = newParam[string]("state", "default visible").oneOf("visible", "hidden")
)

// The targets an element action reads.
var targetReads = []declared{highlightParam, textParam, refParam, actTabParam}

// pilotAbout says what the pilot's actions do.
var pilotAbout = map[string]string{
	"replay": "the human's flow",
}

// pilotReads are the parameters each pilot action reads; every action
// runs in a tab.
var pilotReads = map[string][]declared{
	"highlight":    {highlightParam, durationParam, actTabParam},
	"save_state":   {snapshotParam, includeURLParam, actTabParam},
	"load_state":   {snapshotParam, includeURLParam, actTabParam},
	"list_states":  {actTabParam},
	"delete_state": {snapshotParam, actTabParam},
	"execute_js":   {scriptParam, scriptTimeoutParam, actTabParam},
	"navigate":     {navURLParam, actTabParam},
	"new_tab":      {navURLParam, actTabParam},
	"close_tab":    {actTabParam},
	"reload":       {actTabParam},
	"back":         {actTabParam},
	"forward":      {actTabParam},
	"click":        targetReads,
	"hover":        targetReads,
	"type":         {highlightParam, refParam, textParam, clearParam, submitParam, actTabParam},
	"press_key":    append([]declared{keyParam}, targetReads...),
	"select":       append([]declared{valueParam}, targetReads...),
	"scroll":       append([]declared{toParam}, targetReads...),
	"wait_for":     {textParam, highlightParam, stateParam, scriptTimeoutParam, actTabParam},
	"replay":       {replayAfterParam, actTabParam},
}

func (s *Server) interactTool() tool {
	modes := make([]mode, len(pilot.Actions))
	for i, name := range pilot.Actions {
		modes[i] = mode{name, pilotAbout[name], pilotReads[name], func(ctx context.Context, a args) (any, error) { return s.interact(ctx, name, a) }}
	}
	return tool{
		name: "interact",
		desc: "AI Web Pilot: act in the developer's tab; refused unless the human enabled it.",
		hints: []mcp.ToolOption{
			mcp.WithDestructiveHintAnnotation(true),
			mcp.WithOpenWorldHintAnnotation(false),
		},
		selector: newParam[string]("action", ""),
		modes:    modes,
		audit:    s.trail.interact,
		scope:    s.tabs.sessionTab,
	}
}

func (s *Server) interact(ctx context.Context, action string, a args) (any, error) {
	p := actionOf(action, a)
	if err := p.Check(); err != nil {
		return nil, err
	}
	// close_tab checks ownership itself; new_tab acts on no tab yet.
	if p.Name != "new_tab" && p.Name != "close_tab" {
		if err := s.tabs.mayAct(ctx, actTabParam.get(a)); err != nil {
			return nil, err
		}
	}
	if p.Name == "replay" {
		return s.replays.replayFlow(ctx, actTabParam.get(a), replayAfterParam.get(a)) // one approval for every step
	}
	if s.approvals.mode.Asks() {
		// Ask only for what could run: the pilot's own refusals come first.
		if err := s.pilot.Check(s.queries.Reachable()); err != nil {
			return nil, err
		}
		if err := s.approvals.approve(ctx, p, actTabParam.get(a)); err != nil {
			return nil, err
		}
	}
	switch {
	case p.Name == "new_tab":
		return s.tabs.newTab(ctx, p)
	case p.Name == "close_tab":
		return s.tabs.closeTab(ctx, actTabParam.get(a), p)
	case pilot.IsAct(p.Name):
		return s.acts.act(ctx, actTabParam.get(a), p)
	}
	return s.runPilot(ctx, actTabParam.get(a), p)
}

func (s *Server) runPilot(ctx context.Context, tab int, p pilot.Action) (any, error) {
	if err := s.pilot.Check(s.queries.Reachable()); err != nil {
		return nil, err
	}
	timeout := p.Timeout()
	var out map[string]any
	resp, err := askPage(ctx, s.queries, browser.KindPilot, tab, p, timeout, &out)
	if err != nil {
		return nil, err
	}
	if resp.Tab != 0 {
		out["tab"] = resp.Tab
	}
	return out, nil
}

// actionOf is the pilot action a call asks for, as its arguments say.
func actionOf(action string, a args) pilot.Action {
	p := pilot.Action{
		Name:         action,
		Selector:     highlightParam.get(a),
		DurationMS:   durationParam.get(a),
		SnapshotName: snapshotParam.get(a),
		Script:       scriptParam.get(a),
		TimeoutMS:    scriptTimeoutParam.get(a),
		Act: pilot.Act{
			Text: textParam.get(a), Ref: refParam.get(a), URL: navURLParam.get(a), Submit: submitParam.get(a),
			Key: keyParam.get(a), Value: valueParam.get(a), To: toParam.get(a), State: stateParam.get(a),
		},
	}
	if _, ok := a[includeURLParam.name]; ok {
		p.IncludeURL = new(includeURLParam.get(a))
	}
	if c, ok := clearParam.lookup(a); ok {
		p.Clear = &c
	}
	return p
}
