package server

import (
	"context"
	"time"

	"github.com/gasoline-dev/gasoline/features/a11y"
	"github.com/gasoline-dev/gasoline/features/browser"
)

// The parameters of the accessibility target.
var (
	scopeParam   = newParam[string]("scope", "CSS selector to audit")
	tagsParam    = newParam[[]string]("tags", "axe tags, e.g. wcag2aa")
	passesParam  = newParam[bool]("include_passes", "")
	refreshParam = newParam[bool]("force_refresh", "")
)

func (lp *livePage) accessibility(ctx context.Context, a args) (any, error) {
	o := a11y.Options{Scope: scopeParam.get(a), Tags: tagsParam.get(a), IncludePasses: passesParam.get(a)}
	force, tab := refreshParam.get(a), queryTabParam.get(a)
	if p, ok := lp.store.Page(); ok && !force && (tab == 0 || tab == p.TabID) {
		if r, ok := lp.audits.Get(p.URL, o); ok {
			return r, nil
		}
	}
	if !lp.queries.Reachable() {
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
	resp, err := lp.ask(ctx, browser.KindA11y, tab, o, a11y.Timeout, &r)
	if err != nil {
		return nil, err
	}
	r.Enforce()
	if r.URL == "" {
		r.URL = resp.URL
	}
	lp.audits.Put(o, r)
	progress(ctx, 1, 1, "audit done")
	return r, nil
}
