package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gasoline-dev/gasoline/features/a11y"
	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// domTimeout bounds DOM and page-info queries (the spec's 10 s).
const domTimeout = 10 * time.Second

// The parameters of the dom and accessibility targets.
var (
	selectorParam = newParam[string]("selector", "CSS selector (dom: required)")
	stylesParam   = newParam[bool]("include_styles", "dom: computed layout styles")
	propsParam    = newParam[[]string]("properties", "dom: styles instead")
	childrenParam = newParam[bool]("include_children", "dom: child elements")
	depthParam    = newParam[int]("max_depth", "dom: child depth (default 3)").between(1, browser.MaxDepth)
	scopeParam    = newParam[string]("scope", "accessibility: CSS selector to audit")
	tagsParam     = newParam[[]string]("tags", "accessibility: axe tags, e.g. wcag2aa")
	passesParam   = newParam[bool]("include_passes", "accessibility: list passing rules")
	refreshParam  = newParam[bool]("force_refresh", "accessibility: ignore the cache")
	queryTabParam = tabParam.describe("Query this tab instead")
)

func (s *Server) analyzeTool() tool {
	return tool{
		name: "analyze",
		desc: "Inspect the live page in the developer's tab (the tracked tab unless tab_id). " +
			"dom: elements matching selector; page_info: page summary; accessibility: axe-core audit, cached 30 s per page; " +
			"security: secrets, PII, auth, plain HTTP; api: response shape changes (action report); " +
			"screenshot: viewport, element or full_page; verify: action start, watch, compare; diff: action capture, compare, list, delete snapshots; performance: loads vs baseline.",
		hints:    additive,
		selector: newParam[string]("target", ""),
		params: []declared{selectorParam, stylesParam, propsParam, childrenParam, depthParam,
			scopeParam, tagsParam, passesParam, refreshParam, queryTabParam, fullPageParam, formatParam, maxWidthParam,
			actionParam, checksParam, severityParam, filterParam, ignoreParam, sessionIDParam, nameParam, compareBParam},
		modes: []mode{
			{"dom", s.analyzeDOM},
			{"page_info", s.analyzePageInfo},
			{"screenshot", s.analyzeScreenshot},
			{"accessibility", s.analyzeAccessibility},
			{"security", s.audited("security", s.afterHeld(s.analyzeSecurity))},
			{"api", s.audited("api", s.afterHeld(s.analyzeAPI))},
			{"verify", s.audited("verify", s.afterHeld(s.analyzeVerify))},
			{"diff", s.audited("diff", s.afterHeld(s.analyzeDiff))},
			{"performance", s.analyzePerformance},
		},
	}
}

// ask sends one query to the page and decodes its answer into v.
func (s *Server) ask(ctx context.Context, kind string, tab int, params any, timeout time.Duration, v any) (browser.Response, error) {
	resp, err := s.queries.Ask(ctx, kind, tab, params, timeout)
	if err != nil {
		return resp, err
	}
	if err := json.Unmarshal(resp.Result, v); err != nil {
		return resp, problem.New(problem.Internal, "the extension's answer could not be read: %v", err)
	}
	return resp, nil
}

func (s *Server) analyzeDOM(ctx context.Context, a args) (any, error) {
	p := browser.DOMParams{
		Selector:        selectorParam.get(a),
		IncludeStyles:   stylesParam.get(a),
		IncludeChildren: childrenParam.get(a),
		MaxDepth:        depthParam.get(a),
		Properties:      propsParam.get(a),
	}
	tab := queryTabParam.get(a)
	if err := p.Check(); err != nil {
		return nil, err
	}
	var r browser.DOMResult
	resp, err := s.ask(ctx, browser.KindDOM, tab, p, domTimeout, &r)
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

func (s *Server) analyzePageInfo(ctx context.Context, a args) (any, error) {
	var p browser.PageInfo
	resp, err := s.ask(ctx, browser.KindPageInfo, queryTabParam.get(a), struct{}{}, domTimeout, &p)
	if err != nil {
		return nil, err
	}
	p.Enforce()
	return struct {
		Tab int `json:"tab,omitempty"`
		browser.PageInfo
	}{resp.Tab, p}, nil
}

func (s *Server) analyzeAccessibility(ctx context.Context, a args) (any, error) {
	o := a11y.Options{Scope: scopeParam.get(a), Tags: tagsParam.get(a), IncludePasses: passesParam.get(a)}
	force, tab := refreshParam.get(a), queryTabParam.get(a)
	if p, ok := s.store.Page(); ok && !force && (tab == 0 || tab == p.TabID) {
		if r, ok := s.audits.Get(p.URL, o); ok {
			return r, nil
		}
	}
	if !s.queries.Reachable() {
		return nil, browser.ErrNotConnected
	}
	// An audit takes seconds on a big page: tell a client that asked how it goes.
	start := time.Now()
	progress(ctx, 0, 1, "running axe-core in the page")
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				progress(ctx, min(0.9, time.Since(start).Seconds()/a11y.Timeout.Seconds()), 1, "axe-core audit running")
			}
		}
	}()
	var r a11y.Result
	resp, err := s.ask(ctx, browser.KindA11y, tab, o, a11y.Timeout, &r)
	if err != nil {
		return nil, err
	}
	r.Enforce()
	if r.URL == "" {
		r.URL = resp.URL
	}
	s.audits.Put(o, r)
	progress(ctx, 1, 1, "audit done")
	return r, nil
}
