package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/a11y"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/query"
)

// domTimeout bounds DOM and page-info queries (the spec's 10 s).
const domTimeout = 10 * time.Second

func analyzeTool() mcp.Tool {
	return mcp.NewTool("analyze",
		mcp.WithDescription("Inspect the live page in the developer's tab (the tracked tab unless tab_id). "+
			"dom: elements matching selector; page_info: page summary; accessibility: axe-core audit, cached 30 s per page."),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithString("target", mcp.Required(), mcp.Enum("dom", "page_info", "accessibility")),
		mcp.WithString("selector", mcp.Description("dom: CSS selector (required)")),
		mcp.WithBoolean("include_styles", mcp.Description("dom: computed layout styles")),
		mcp.WithArray("properties", mcp.Description("dom: style properties to return instead"), mcp.WithStringItems()),
		mcp.WithBoolean("include_children", mcp.Description("dom: child elements")),
		mcp.WithInteger("max_depth", mcp.Description("dom: child depth (default 3)"), mcp.Min(1), mcp.Max(query.MaxDepth)),
		mcp.WithString("scope", mcp.Description("accessibility: CSS selector to audit")),
		mcp.WithArray("tags", mcp.Description("accessibility: axe tags, e.g. wcag2aa"), mcp.WithStringItems()),
		mcp.WithBoolean("include_passes", mcp.Description("accessibility: list passing rules")),
		mcp.WithBoolean("force_refresh", mcp.Description("accessibility: ignore the cache")),
		mcp.WithInteger("tab_id", mcp.Description("Query this tab instead")),
	)
}

func (s *Server) analyzeModes() []mode {
	return []mode{
		{"dom", s.analyzeDOM},
		{"page_info", s.analyzePageInfo},
		{"accessibility", s.analyzeAccessibility},
	}
}

// ask sends one query to the page and decodes its answer into v.
func (s *Server) ask(ctx context.Context, kind string, tab int, params any, timeout time.Duration, v any) (query.Response, error) {
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
	var p query.DOMParams
	var errs [6]error
	p.Selector, errs[0] = a.str("selector")
	p.IncludeStyles, errs[1] = a.bool("include_styles")
	p.IncludeChildren, errs[2] = a.bool("include_children")
	p.MaxDepth, errs[3] = a.int("max_depth", 1, query.MaxDepth)
	p.Properties, errs[4] = a.strs("properties")
	tab, err := a.int("tab_id", 0, 1<<31-1)
	errs[5] = err
	if err := firstErr(errs[:]...); err != nil {
		return nil, err
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	var r query.DOMResult
	resp, err := s.ask(ctx, query.KindDOM, tab, p, domTimeout, &r)
	if err != nil {
		return nil, err
	}
	r.Enforce(p.MaxDepth)
	if r.URL == "" {
		r.URL = resp.URL
	}
	return struct {
		Tab int `json:"tab,omitempty"`
		query.DOMResult
	}{resp.Tab, r}, nil
}

func (s *Server) analyzePageInfo(ctx context.Context, a args) (any, error) {
	tab, err := a.int("tab_id", 0, 1<<31-1)
	if err != nil {
		return nil, err
	}
	var p query.PageInfo
	resp, err := s.ask(ctx, query.KindPageInfo, tab, struct{}{}, domTimeout, &p)
	if err != nil {
		return nil, err
	}
	p.Enforce()
	return struct {
		Tab int `json:"tab,omitempty"`
		query.PageInfo
	}{resp.Tab, p}, nil
}

func (s *Server) analyzeAccessibility(ctx context.Context, a args) (any, error) {
	var o a11y.Options
	var errs [5]error
	o.Scope, errs[0] = a.str("scope")
	o.Tags, errs[1] = a.strs("tags")
	o.IncludePasses, errs[2] = a.bool("include_passes")
	force, err := a.bool("force_refresh")
	errs[3] = err
	tab, err := a.int("tab_id", 0, 1<<31-1)
	errs[4] = err
	if err := firstErr(errs[:]...); err != nil {
		return nil, err
	}
	if p, ok := s.store.Page(); ok && !force && (tab == 0 || tab == p.TabID) {
		if r, ok := s.audits.Get(p.URL, o); ok {
			return r, nil
		}
	}
	if !s.queries.Reachable() {
		return nil, query.ErrNotConnected
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
	resp, err := s.ask(ctx, query.KindA11y, tab, o, a11y.Timeout, &r)
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
