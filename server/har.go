package server

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gasoline-dev/gasoline/features/har"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// harResult is what generate{format:"har"} answers: where the archive is
// and what it holds; the archive itself only when small.
type harResult struct {
	Path    string          `json:"path,omitempty"`
	Entries int             `json:"entries"`
	Pages   int             `json:"pages"`
	Bytes   int             `json:"bytes"`
	HAR     json.RawMessage `json:"har,omitempty"`
}

func (g *generator) har(ctx context.Context, a args) (any, error) {
	sess := g.session(filterParam.get(a))
	log := har.Build(sess.Network, sess.Bodies, har.Options{URLFilter: filterParam.get(a), Version: g.version, Loads: g.perf.harLoads()})
	b, err := json.Marshal(log)
	if err != nil {
		return nil, fmt.Errorf("encode har: %w", err)
	}
	r := harResult{Entries: len(log.Log.Entries), Pages: len(log.Log.Pages), Bytes: len(b)}
	if r.Entries == 0 {
		g.trail.mode(ctx, "generate", "har", "no requests", nil)
		return nil, problem.New(problem.NotFound, "no captured requests%s", filterNote(filterParam.get(a)))
	}
	path, inline, err := har.Place(g.harDir, b, time.Now())
	if err != nil {
		return nil, err
	}
	r.Path = path
	if inline {
		r.HAR = b
	}
	g.trail.mode(ctx, "generate", "har", fmt.Sprintf("%d entries, %d bytes %s", r.Entries, r.Bytes, r.Path), nil)
	return r, nil
}

// harLoads are the page loads the pages measured, for the archive's page
// timings.
func (p *pageLoads) harLoads() []har.Load {
	ts := p.Timings()
	out := make([]har.Load, len(ts))
	for i, t := range ts {
		out[i] = har.Load{Tab: t.Tab, URL: t.URL, Start: t.Start, OnContentLoad: t.DOMContentLoaded, OnLoad: t.Load}
	}
	return out
}

func filterNote(f string) string {
	if f == "" {
		return ""
	}
	return fmt.Sprintf(" matching %q", f)
}
