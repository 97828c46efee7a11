package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/testgen"
)

// The parameters of generate{format:"test"}; url_filter is observe's.
var (
	testNameParam = nameParam.describe("title")
	baseURLParam  = newParam[string]("base_url", "")
	mockParam     = newParam[bool]("mock_api", "")
	shotsParam    = newParam[bool]("screenshots", "add toHaveScreenshot()")
	includeAI     = newParam[bool]("include_ai", "")
)

// What an artifact is generated from: the newest captured entries.
const (
	genActions = 200
	genNetwork = 500
	genBodies  = 100
)

// session collects what an artifact is generated from.
func (g *generator) session(urlFilter string) testgen.Session {
	return testgen.Session{
		Actions: g.store.Actions(capture.Query{Limit: genActions, URL: urlFilter}).Entries,
		Network: g.store.Network(capture.Query{Limit: genNetwork, URL: urlFilter}).Entries,
		Bodies:  g.store.Bodies(capture.Query{Limit: genBodies, URL: urlFilter}).Entries,
	}
}

func (g *generator) test(ctx context.Context, a args) (any, error) {
	o := testgen.Options{Name: testNameParam.get(a), BaseURL: baseURLParam.get(a), MockAPI: mockParam.get(a),
		Screenshots: shotsParam.get(a), URLFilter: filterParam.get(a), IncludeAI: includeAI.get(a)}
	sess := g.session("")
	sess.DOM = g.page.pageDOM(ctx)
	r, err := testgen.Generate(sess, o)
	if errors.Is(err, testgen.ErrNoActions) {
		g.trail.mode(ctx, "generate", "test", "no actions", nil)
		return nil, problem.New(problem.NotFound, "%v", err)
	}
	if err != nil {
		return nil, err
	}
	g.trail.mode(ctx, "generate", "test", fmt.Sprintf("%s: %d steps, %d assertions", r.Filename, r.Steps, r.Assertions), nil)
	return r, nil
}

// pageDOM is the tracked page's headings and test ids for the test's final
// assertions, when the extension answers within a short wait; a test
// without them is still a test.
func (lp *livePage) pageDOM(ctx context.Context) *testgen.DOM {
	if !lp.queries.Reachable() {
		return nil
	}
	const wait = 3 * time.Second
	var info browser.PageInfo
	if _, err := lp.ask(ctx, browser.KindPageInfo, 0, struct{}{}, wait, &info); err != nil {
		return nil
	}
	info.Enforce()
	d := &testgen.DOM{URL: info.URL, Headings: info.Headings}
	p := browser.DOMParams{Selector: "[data-testid]"}
	var r browser.DOMResult
	if p.Check() != nil {
		return d
	}
	if _, err := lp.ask(ctx, browser.KindDOM, 0, p, wait, &r); err == nil {
		r.Enforce(p.MaxDepth)
		d.Elements = r.Matches
	}
	return d
}
