package server

import (
	"context"
	"net/http"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/sessiontabs"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// trackTabParam is configure track's tab: absent, the human's tracked tab.
var trackTabParam = tabParam.describe("none: the human's tab")

// sessionOf is the calling MCP session's id, "" outside one.
func sessionOf(ctx context.Context) string {
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		return cs.SessionID()
	}
	return ""
}

// aiTabs is each AI session's own or chosen tab: which tab a session reads
// and acts on by default, which it may act on, the tabs it opens and
// closes, and the human freeing one.
type aiTabs struct {
	*sessiontabs.Tabs
	store   *capture.Store
	queries *browser.Broker
	pilot   *pilot.Switch
	audit   func(audit.Event)
}

func (t *aiTabs) routes(r routes) {
	r.human("POST /api/tabs/free", t.handleFree)
}

// sessionTab is the tab the calling session reads and acts on by default:
// its own (new_tab) or chosen (configure track) tab; 0, the human's.
func (t *aiTabs) sessionTab(ctx context.Context) int {
	return t.Of(sessionOf(ctx)).Tab
}

// configureTrack binds this session's reading to a tab, or back to the
// human's tracked tab.
func (t *aiTabs) configureTrack(ctx context.Context, a args) (any, error) {
	tab := trackTabParam.get(a)
	t.Track(sessionOf(ctx), agent(ctx), tab)
	if tab == 0 {
		return map[string]any{"tab": 0, "reads": "the human's tracked tab"}, nil
	}
	return map[string]int{"tab": tab}, nil
}

// mayAct refuses an action on a tab another live session owns; tab 0 is
// the human's tracked tab.
func (t *aiTabs) mayAct(ctx context.Context, tab int) error {
	if tab == 0 {
		if pg, ok := t.store.Page(); ok {
			tab = pg.TabID
		}
	}
	return t.MayAct(sessionOf(ctx), tab)
}

// newTab opens a tab of the calling session's own and binds the session to
// it: its reads and actions go there by default, and no other session may
// act on it.
func (t *aiTabs) newTab(ctx context.Context, p pilot.Action) (any, error) {
	sess := sessionOf(ctx)
	if err := t.Reserve(sess); err != nil {
		return nil, err
	}
	if err := t.pilot.Check(t.queries.Reachable()); err != nil {
		return nil, err
	}
	var r struct {
		TabID int    `json:"tab_id"`
		URL   string `json:"url"`
		Title string `json:"title,omitempty"`
	}
	if _, err := askPage(ctx, t.queries, browser.KindPilot, 0, p, p.Timeout(), &r); err != nil {
		return nil, err
	}
	if r.TabID == 0 {
		return nil, problem.New(problem.Internal, "the extension opened no tab")
	}
	t.Own(sess, agent(ctx), r.TabID)
	return r, nil
}

// closeTab closes a tab the calling session opened.
func (t *aiTabs) closeTab(ctx context.Context, tab int, p pilot.Action) (any, error) {
	sess := sessionOf(ctx)
	if tab == 0 {
		return nil, problem.New(problem.InvalidParam, "this session has no tab of its own to close: close_tab closes a tab it opened with new_tab")
	}
	if o, ok := t.Owner(tab); !ok || o.Session != sess {
		if err := t.MayAct(sess, tab); err != nil {
			return nil, err
		}
		return nil, problem.New(problem.InvalidParam, "tab %d is not one this session opened: close_tab closes only those", tab)
	}
	if err := t.pilot.Check(t.queries.Reachable()); err != nil {
		return nil, err
	}
	var r map[string]any
	if _, err := askPage(ctx, t.queries, browser.KindPilot, tab, p, p.Timeout(), &r); err != nil {
		return nil, err
	}
	t.Closed(tab)
	return r, nil
}

// list is the sessions' tabs for the status, bounded (wire.MaxAITabs)
// and with the agents' names capped as the audit caps them: a client
// names itself.
func (t *aiTabs) list() []sessiontabs.Binding {
	bs := t.List()
	if len(bs) > wire.MaxAITabs {
		bs = bs[:wire.MaxAITabs]
	}
	for i := range bs {
		bs[i].Agent = audit.Cap(bs[i].Agent)
	}
	return bs
}

// handleFree is the human freeing a tab an AI session owns: any session
// may act on it again; its owner still reads it.
func (t *aiTabs) handleFree(w http.ResponseWriter, r *http.Request) {
	var req wire.TabFree
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if req.Tab <= 0 {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"tab": a tab id}`))
		return
	}
	owner, owned := t.Owner(req.Tab)
	if !owned || !t.Free(req.Tab) {
		writeProblem(w, problem.New(problem.NotFound, "no AI session owns tab %d", req.Tab))
		return
	}
	t.audit(audit.Event{Event: "tab_freed", Tab: req.Tab, From: audit.Cap(owner.Agent), Source: "human", Agent: "human"})
	writeJSON(w, http.StatusOK, wire.AITabs{Tabs: t.list()})
}
