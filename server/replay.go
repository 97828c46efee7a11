package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/redact"
	"github.com/gasoline-dev/gasoline/features/replay"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// replayAfterParam starts a replay after an observe actions cursor.
var replayAfterParam = newParam[uint64]("after", "")

// replayStep is one step of a replay's answer.
type replayStep struct {
	N      int        `json:"n"`
	Action string     `json:"action"`
	Target string     `json:"target,omitempty"`
	Result string     `json:"result"`
	Why    string     `json:"why,omitempty"`
	Caused *actCaused `json:"caused,omitempty"`
}

// replayAnswer is a replay's answer.
type replayAnswer struct {
	ReplayID string       `json:"replay_id"`
	Summary  string       `json:"summary"`
	Steps    []replayStep `json:"steps"`
	Tab      int          `json:"tab,omitempty"`
}

// replayer replays the human's recorded flow through the AI's actions.
type replayer struct {
	act     *actor
	asks    func() bool // the approval mode is ask
	approve func(ctx context.Context, p pilot.Action, tab int, steps ...string) error
	audit   func(audit.Event)
	changed func() // the status the dashboard shows changed

	mu      sync.Mutex
	running map[string]*replayRun // by replay id
}

// replayRun is a replay under way: what the dashboard shows, and how the
// human's x stops it between two steps.
type replayRun struct {
	wire.Replay
	stop chan struct{} // closed to stop it
}

// replayFlow replays the human's recorded flow on the tab: the steps
// planned from what was captured, one approval for all of them in ask mode,
// each step through the AI's own actions, settled before the next.
func (r *replayer) replayFlow(ctx context.Context, tab int, after uint64) (any, error) {
	if err := r.act.pilot.Check(r.act.queries.Reachable()); err != nil {
		return nil, err
	}
	if tab == 0 {
		if pg, ok := r.act.store.Page(); ok {
			tab = pg.TabID
		}
	}
	if tab == 0 {
		return nil, problem.New(problem.NotFound, "no tab is tracked: ask the human to open the page, or pass tab_id")
	}
	actions := r.act.store.Actions(capture.Query{After: after, TabID: tab, All: true}).Entries
	slices.Reverse(actions)
	if after == 0 {
		if i := replay.FlowStart(actions); i > 0 {
			actions = actions[i:]
		}
	}
	steps, cut := replay.Plan(actions)
	if len(steps) > 0 && steps[0].Action != "navigate" && actions[0].Page != "" {
		// The flow began before what is kept: start from the page its first step was on.
		steps = append([]replay.Step{{Action: "navigate", Target: actions[0].Page}}, steps...)
		if len(steps) > replay.MaxSteps {
			steps, cut = steps[:replay.MaxSteps], cut+1
		}
		for i := range steps {
			steps[i].N = i + 1
		}
	}
	if len(steps) <= 1 {
		return nil, problem.New(problem.NotFound, "no flow of the human's to replay on tab %d: ask them to show it once (with action capture on)", tab)
	}
	if cut > 0 {
		return nil, problem.New(problem.InvalidParam, "the flow has %d steps, more than %d: pass after (a cursor from observe actions) to replay its end", len(steps)+cut, replay.MaxSteps)
	}
	if r.asks() {
		list := make([]string, len(steps))
		for i, st := range steps {
			list[i] = fmt.Sprintf("%d. %s", st.N, redact.Text(st.Describe()))
		}
		if err := r.approve(ctx, pilot.Action{Name: "replay"}, tab, list...); err != nil {
			return nil, err
		}
	}
	id := newReplayID()
	run := r.start(id, agent(ctx), tab, len(steps))
	defer r.end(id)
	ctx, cancel := context.WithTimeout(ctx, replay.MaxTime)
	defer cancel()
	out := replayAnswer{ReplayID: id, Tab: tab}
	counts := map[string]int{}
	for _, st := range steps {
		if st.Skip != "" {
			out.Steps = append(out.Steps, replayStep{N: st.N, Action: st.Action, Target: st.Target, Result: "skipped", Why: st.Skip})
			counts["skipped"]++
			r.auditStep(ctx, id, st, "skipped", nil)
			continue
		}
		if ctx.Err() != nil {
			return nil, problem.New(problem.Timeout, "the replay took over %v and stopped before step %d (%s %s); steps 1–%d ran", replay.MaxTime, st.N, st.Action, st.Target, st.N-1)
		}
		// The human's x, their switch or their block (P) stops a replay between steps.
		r.at(run, st.N)
		select {
		case <-run.stop:
			return nil, problem.New(problem.RevokedByUser, "the human stopped the replay before step %d (%s %s); steps 1–%d ran (replay %s). Do not replay it again unasked.",
				st.N, st.Action, st.Target, st.N-1, id)
		default:
		}
		if err := r.act.pilot.Check(r.act.queries.Reachable()); err != nil {
			return nil, err
		}
		res, err := r.replayStep(ctx, tab, st)
		r.auditStep(ctx, id, st, "ok", err)
		if err != nil {
			p := problem.From(err)
			shown := ""
			if pg, ok := r.act.store.Page(); ok {
				shown = fmt.Sprintf("; the page showed %s %q", pg.URL, pg.Title)
			}
			return nil, problem.New(p.Code, "step %d (%s %s) failed: %s%s; steps 1–%d ran (replay %s)", st.N, st.Action, st.Target, p.Message, shown, st.N-1, id)
		}
		step := replayStep{N: st.N, Action: st.Action, Target: st.Target, Result: "ok"}
		if res.Caused != nil {
			c := *res.Caused
			c.Dialogs = nil
			step.Caused = &c
		}
		out.Steps = append(out.Steps, step)
		counts["ok"]++
	}
	out.Summary = fmt.Sprintf("%d steps replayed: %d ok", len(steps), counts["ok"])
	if n := counts["skipped"]; n > 0 {
		out.Summary += fmt.Sprintf(", %d skipped", n)
	}
	return out, nil
}

// replayStep runs one step: the recorded selector, else the recorded text.
func (r *replayer) replayStep(ctx context.Context, tab int, st replay.Step) (actAnswer, error) {
	p := pilot.Action{Name: st.Action, Selector: st.Target}
	switch st.Action {
	case "navigate":
		p.Selector, p.URL = "", st.Target
	case "type":
		p.Text = st.Text
	case "select":
		p.Value = st.Value
	case "press_key":
		p.Key = st.Key
	}
	if err := p.Check(); err != nil {
		return actAnswer{}, err
	}
	v, err := r.act.act(ctx, tab, p)
	if err != nil && st.Action == "click" && st.Text != "" && problem.From(err).Code == problem.NotFound {
		// The selector changed: the same role and name, or visible text.
		p.Selector, p.Text = "", st.Text
		v, err = r.act.act(ctx, tab, p)
	}
	if err != nil {
		return actAnswer{}, err
	}
	return v.(actAnswer), nil
}

func (r *replayer) auditStep(ctx context.Context, id string, st replay.Step, result string, err error) {
	ev := audit.Event{Event: "pilot_action", Action: st.Action, Selector: audit.Cap(st.Target), Source: "ai", Agent: agent(ctx),
		Result: result, ReplayID: id}
	if err != nil {
		ev.Result, ev.Error = "error", string(problem.From(err).Code)
	}
	r.audit(ev)
}

func newReplayID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "r" + hex.EncodeToString(b)
}

// start records a replay under way.
func (r *replayer) start(id, who string, tab, steps int) *replayRun {
	run := &replayRun{Replay: wire.Replay{ID: id, Agent: who, Tab: tab, Steps: steps}, stop: make(chan struct{})}
	r.mu.Lock()
	if r.running == nil {
		r.running = map[string]*replayRun{}
	}
	r.running[id] = run
	r.mu.Unlock()
	r.notify()
	return run
}

// at records the step a replay reached.
func (r *replayer) at(run *replayRun, n int) {
	r.mu.Lock()
	run.Step = n
	r.mu.Unlock()
	r.notify()
}

func (r *replayer) end(id string) {
	r.mu.Lock()
	delete(r.running, id)
	r.mu.Unlock()
	r.notify()
}

func (r *replayer) notify() {
	if r.changed != nil {
		r.changed()
	}
}

// underway lists the replays under way, by id.
func (r *replayer) underway() []wire.Replay {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]wire.Replay, 0, len(r.running))
	for _, run := range r.running {
		out = append(out, run.Replay)
	}
	slices.SortFunc(out, func(a, b wire.Replay) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// stopReplays stops every replay under way, between two of its steps, and
// names them.
func (r *replayer) stopReplays() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for id, run := range r.running {
		close(run.stop)
		delete(r.running, id)
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func (r *replayer) routes(rt routes) {
	rt.human("POST /api/replays/stop", r.handleStop)
}

// handleStop is the human's x while a replay runs: POST /api/replays/stop.
func (r *replayer) handleStop(w http.ResponseWriter, _ *http.Request) {
	ids := r.stopReplays()
	r.notify()
	writeJSON(w, http.StatusOK, wire.ReplaysStopped{Stopped: nonNil(ids)})
}
