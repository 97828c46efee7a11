package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gasoline-dev/gasoline/features/a11y"
	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/visual"
)

// livePage is analyze's reads of the live page through the extension
// (features/browser): its elements, summary, screenshots, accessibility
// audit, and verify's visual check (visual.go).
type livePage struct {
	queries *browser.Broker
	store   *capture.Store
	audits  *a11y.Cache // the latest audit per page, for generate sarif
	visuals *visual.Dir // verify's screenshots; nil: no visual check
	trail   *auditTrail
}

// domTimeout bounds DOM and page-info queries (the spec's 10 s).
const domTimeout = 10 * time.Second

// The parameters of the dom target.
var (
	selectorParam = newParam[string]("selector", "CSS selector (dom: required)")
	stylesParam   = newParam[bool]("include_styles", "computed layout styles")
	propsParam    = newParam[[]string]("properties", "these styles instead")
	childrenParam = newParam[bool]("include_children", "")
	depthParam    = newParam[int]("max_depth", "default 3").between(1, browser.MaxDepth)
)

// ask sends one query to the page and decodes its answer into v.
func (lp *livePage) ask(ctx context.Context, kind string, tab int, params any, timeout time.Duration, v any) (browser.Response, error) {
	return askPage(ctx, lp.queries, kind, tab, params, timeout, v)
}

// askPage sends one query to the page through b and decodes its answer.
func askPage(ctx context.Context, b *browser.Broker, kind string, tab int, params any, timeout time.Duration, v any) (browser.Response, error) {
	resp, err := b.Ask(ctx, kind, tab, params, timeout)
	if err != nil {
		return resp, err
	}
	if err := json.Unmarshal(resp.Result, v); err != nil {
		return resp, problem.New(problem.Internal, "the extension's answer could not be read: %v", err)
	}
	return resp, nil
}

func (lp *livePage) dom(ctx context.Context, a args) (any, error) {
	p := browser.DOMParams{
		Selector:        selectorParam.get(a),
		IncludeStyles:   stylesParam.get(a),
		IncludeChildren: childrenParam.get(a),
		MaxDepth:        depthParam.get(a),
		Properties:      propsParam.get(a),
	}
	// properties asks for styles: it brings them, never ignored without
	// include_styles (false counts as left out, as every value that asks nothing).
	p.IncludeStyles = p.IncludeStyles || len(p.Properties) > 0
	tab := queryTabParam.get(a)
	if err := p.Check(); err != nil {
		return nil, err
	}
	var r browser.DOMResult
	resp, err := lp.ask(ctx, browser.KindDOM, tab, p, domTimeout, &r)
	if err != nil {
		return nil, err
	}
	r.Enforce(p.MaxDepth)
	if r.URL == "" {
		r.URL = resp.URL
	}
	return struct {
		Tab int `json:"tab,omitempty"`
		browser.DOMResult
	}{resp.Tab, r}, nil
}

func (lp *livePage) pageInfo(ctx context.Context, a args) (any, error) {
	var p browser.PageInfo
	resp, err := lp.ask(ctx, browser.KindPageInfo, queryTabParam.get(a), struct{}{}, domTimeout, &p)
	if err != nil {
		return nil, err
	}
	p.Enforce()
	return struct {
		Tab int `json:"tab,omitempty"`
		browser.PageInfo
	}{resp.Tab, p}, nil
}
