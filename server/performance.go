package server

import (
	"context"
	"fmt"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/features/redact"
)

// Perf exposes the page-load store: snapshot.NewReader takes its Latest as
// the perf.LatestFunc of verify and diff.
func (s *Server) Perf() *perf.Store { return s.perf.Store }

// pageLoads are the page loads the pages measure (features/perf): taken in
// from /performance, shown to the dashboards as they come, read by observe
// and analyze performance and by the HAR archive.
type pageLoads struct {
	*perf.Store
	losses  *capture.Losses
	events  *hub
	trail   *auditTrail
	started time.Time // a later row of a load before it is not a loss
}

// add stores the samples of POST /performance, each URL scrubbed
// of secrets first.
func (p *pageLoads) add(samples []perf.Sample) (int, []capture.Rejection) {
	var rej []capture.Rejection
	n := 0
	for i, smp := range samples {
		smp.URL = redact.URL(smp.URL)
		redactResources(&smp)
		if smp.More {
			if err := p.addLaterRows(smp); err != nil {
				rej = append(rej, capture.Rejection{Index: i, Error: err.Error()})
				continue
			}
			n++
			continue
		}
		added, err := p.Add(smp)
		if err != nil {
			rej = append(rej, capture.Rejection{Index: i, Error: err.Error()})
			continue
		}
		p.loaded(added)
		n++
	}
	return n, rej
}

func (p *pageLoads) observe(ctx context.Context, a args) (any, error) {
	pages := p.Snapshots(urlParam.get(a), min(limitParam.get(a), perf.MaxPages))
	p.trail.mode(ctx, "observe", "performance", fmt.Sprintf("%d pages", len(pages)), nil)
	return &struct {
		riders
		Count int             `json:"count"`
		Pages []perf.Snapshot `json:"pages,omitempty"`
	}{Count: len(pages), Pages: pages}, nil
}

func (p *pageLoads) analyze(ctx context.Context, a args) (any, error) {
	c := p.Check(filterParam.get(a))
	p.trail.mode(ctx, "analyze", "performance", fmt.Sprintf("%s, %d pages", c.Verdict, len(c.Pages)), nil)
	return c, nil
}
