package server

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/approval"
	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/pilot"
	"github.com/gasoline-dev/gasoline/features/redact"
)

// What an action's answer lists of what it caused, at most.
const (
	causedRequestsMax = 20
	causedErrorsMax   = 10
)

// actTarget is the element an action aimed at, as the page named it.
type actTarget struct {
	Ref      string `json:"ref,omitempty"`
	Role     string `json:"role,omitempty"`
	Name     string `json:"name,omitempty"`
	Selector string `json:"selector,omitempty"`
}

// actPage is a page an action led to.
type actPage struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

// actRequest and actError are what an action caused, as captured.
type actRequest struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

type actError struct {
	Message string `json:"message"`
	Source  string `json:"source,omitempty"`
}

type actDialog struct {
	Type    string `json:"type"`
	Message string `json:"message,omitempty"`
}

// actCaused is what happened within the settle window.
type actCaused struct {
	Navigation *actPage     `json:"navigation,omitempty"`
	Requests   []actRequest `json:"requests,omitempty"`
	Errors     []actError   `json:"errors,omitempty"`
	Dialogs    []actDialog  `json:"dialogs,omitempty"`
	// More counts requests and errors past the lists' caps.
	More int `json:"more,omitempty"`
}

// actReport is what the extension reports of an action and the AI reads
// of it alike.
type actReport struct {
	Action string          `json:"action"`
	Target *actTarget      `json:"target,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
	Scroll json.RawMessage `json:"scroll,omitempty"`
	// WaitedMS is how long wait_for waited; SettleMS how long the page
	// took to settle after the input.
	WaitedMS *int   `json:"waited_ms,omitempty"`
	SettleMS int    `json:"settle_ms,omitempty"`
	URL      string `json:"url,omitempty"`
}

// actAnswer is an action's answer: the extension's report, with what the
// action caused read from what was captured meanwhile.
type actAnswer struct {
	actReport
	Caused *actCaused `json:"caused,omitempty"`
	Tab    int        `json:"tab,omitempty"`
}

// extActResult is the extension's report of an action (sw/act.js).
type extActResult struct {
	actReport
	Navigation *actPage    `json:"navigation"`
	Dialogs    []actDialog `json:"dialogs"`
	// Requests, where the browser let the extension watch the tab's
	// network (Chromium's debugger), are every request the action caused.
	Requests     []actRequest `json:"requests"`
	RequestsMore int          `json:"requests_more"`
}

// actor runs the AI's actions in the page (navigate … wait_for) and says
// what each caused, from what the extension captured meanwhile. The
// pilot's gate, the approval and the audit are the interact tool's, before
// and after it.
type actor struct {
	store   *capture.Store
	queries *browser.Broker
	pilot   *pilot.Switch
	// held are the times its actions held a tab: a page load captured in
	// one was the AI's.
	held pilot.Windows
	// locate names an error's first frame at its original source.
	locate func(capture.LogEntry) string
}

// act runs one of the AI's actions and says what it caused.
func (ac *actor) act(ctx context.Context, tab int, p pilot.Action) (any, error) {
	if err := ac.pilot.Check(ac.queries.Reachable()); err != nil {
		return nil, err
	}
	since := ac.store.Network(capture.Query{Limit: 1}).Cursor
	on := tab
	if pg, ok := ac.store.Page(); ok && on == 0 {
		on = pg.TabID
	}
	end := ac.held.Open(on, time.Now())
	defer func() { end(time.Now()) }()
	var r extActResult
	resp, err := askPage(ctx, ac.queries, browser.KindPilot, tab, p, p.Timeout(), &r)
	if err != nil {
		return nil, err
	}
	out := actAnswer{actReport: r.actReport, Tab: resp.Tab}
	out.Action, out.URL = p.Name, redact.URL(r.URL)
	c := ac.caused(ctx, resp.Tab, since, r.Requests == nil)
	if r.Requests != nil {
		c.Requests, c.More = r.Requests, c.More+r.RequestsMore
		for i := range c.Requests {
			c.Requests[i].URL, c.Requests[i].Error = redact.URL(c.Requests[i].URL), redact.Text(c.Requests[i].Error)
		}
	}
	if r.Navigation != nil {
		c.Navigation = &actPage{URL: redact.URL(r.Navigation.URL), Title: redact.Text(r.Navigation.Title)}
		out.URL = ""
	}
	c.Dialogs = r.Dialogs
	for i := range c.Dialogs {
		c.Dialogs[i].Message = redact.Text(c.Dialogs[i].Message)
	}
	if c.Navigation != nil || len(c.Requests) > 0 || len(c.Errors) > 0 || len(c.Dialogs) > 0 {
		out.Caused = &c
	}
	if out.Target != nil {
		out.Target.Name = redact.Text(out.Target.Name)
	}
	return out, nil
}

// markAILoads marks as the AI's the page loads captured while its action
// held the tab: the new document's content script cannot know who loaded
// it.
func (ac *actor) markAILoads(add func([]capture.Action) (int, []capture.Rejection)) func([]capture.Action) (int, []capture.Rejection) {
	return func(as []capture.Action) (int, []capture.Rejection) {
		for i := range as {
			if a := &as[i]; a.Type == "navigation" && ac.held.Covers(a.TabID, a.TS.Time) {
				a.Source = "ai"
			}
		}
		return add(as)
	}
}

// describeAct fills in what the human is asked to approve: the target as
// the page names it (found first, so a target that is not there, or a
// field the AI may never fill, is refused before anyone is asked), the
// text to type with secrets masked, where a navigation goes.
func (ac *actor) describeAct(ctx context.Context, p pilot.Action, req *approval.Request) error {
	if p.Name == "new_tab" {
		req.To = redact.URL(p.URL) // where the session's own tab would open
	}
	if !pilot.IsAct(p.Name) {
		return nil
	}
	req.Selector = p.Target()
	switch p.Name {
	case "type":
		req.Text = redact.Text(p.Text)
	case "navigate":
		req.To = redact.URL(p.URL)
	}
	if !p.Targeted() {
		return nil
	}
	q := p
	q.Describe = true
	var r extActResult
	if _, err := askPage(ctx, ac.queries, browser.KindPilot, req.Tab, q, domTimeout, &r); err != nil {
		return err
	}
	if t := r.Target; t != nil {
		req.Target = strings.TrimSpace(t.Role + " " + strconv.Quote(redact.Text(t.Name)) + " " + t.Selector)
	}
	return nil
}

// caused reads the errors (and, unless the extension saw them, the
// requests) captured on tab since the cursor, oldest first: the extension
// delivered them before it answered.
func (ac *actor) caused(ctx context.Context, tab int, since uint64, requests bool) actCaused {
	var c actCaused
	if tab == 0 {
		return c
	}
	var nets []capture.NetworkEntry
	if requests {
		nets = ac.store.Network(capture.Query{After: since, TabID: tab, All: true}).Entries
	}
	slices.Reverse(nets)
	for _, n := range nets {
		if len(c.Requests) == causedRequestsMax {
			c.More++
			continue
		}
		c.Requests = append(c.Requests, actRequest{Method: n.Method, URL: n.URL, Status: n.Status, Error: n.Error})
	}
	errs := ac.store.Errors(capture.Query{After: since, TabID: tab, All: true}).Entries
	slices.Reverse(errs)
	for _, e := range errs {
		if len(c.Errors) == causedErrorsMax {
			c.More++
			continue
		}
		c.Errors = append(c.Errors, actError{Message: e.Message, Source: ac.locate(e)})
	}
	return c
}

// interactiveElement is one actionable element of analyze interactive.
type interactiveElement struct {
	Ref         string `json:"ref"`
	Role        string `json:"role"`
	Name        string `json:"name,omitempty"`
	Selector    string `json:"selector,omitempty"`
	Value       string `json:"value,omitempty"`
	ValueHidden bool   `json:"value_hidden,omitempty"`
	Checked     *bool  `json:"checked,omitempty"`
	Visible     *bool  `json:"visible,omitempty"`
	InViewport  *bool  `json:"in_viewport,omitempty"`
	Disabled    bool   `json:"disabled,omitempty"`
}

// interactiveList is a page of the list; Next is the after of the next.
type interactiveList struct {
	Tab      int                  `json:"tab,omitempty"`
	URL      string               `json:"url"`
	Title    string               `json:"title,omitempty"`
	Count    int                  `json:"count"`
	Next     int                  `json:"next,omitempty"`
	Elements []interactiveElement `json:"elements"`
}

// analyzeInteractive lists the page's actionable elements with refs.
func (ac *actor) analyzeInteractive(ctx context.Context, a args) (any, error) {
	var r interactiveList
	resp, err := askPage(ctx, ac.queries, browser.KindInteractive, queryTabParam.get(a), map[string]uint64{"after": listAfterParam.get(a)}, domTimeout, &r)
	if err != nil {
		return nil, err
	}
	r.Tab, r.URL, r.Title = resp.Tab, redact.URL(r.URL), redact.Text(r.Title)
	if len(r.Elements) > pilot.MaxInteractive {
		r.Elements = r.Elements[:pilot.MaxInteractive]
	}
	for i := range r.Elements {
		e := &r.Elements[i]
		e.Name, e.Value = redact.Text(e.Name), redact.Text(e.Value)
	}
	return r, nil
}
