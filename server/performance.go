package server

import (
	"context"
	"fmt"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/features/redact"
)

// Perf exposes the page-load store: snapshot.NewReader takes its Latest as
// the perf.LatestFunc of verify and diff.
func (s *Server) Perf() *perf.Store { return s.perf }

// addPerformance stores the samples of POST /performance, each URL scrubbed
// of secrets first.
func (s *Server) addPerformance(samples []perf.Sample) (int, []capture.Rejection) {
	var rej []capture.Rejection
	n := 0
	for i, smp := range samples {
		smp.URL = redact.URL(smp.URL)
		redactResources(&smp)
		if smp.More {
			if err := s.addLaterRows(smp); err != nil {
				rej = append(rej, capture.Rejection{Index: i, Error: err.Error()})
				continue
			}
			n++
			continue
		}
		added, err := s.perf.Add(smp)
		if err != nil {
			rej = append(rej, capture.Rejection{Index: i, Error: err.Error()})
			continue
		}
		s.pageLoaded(added)
		n++
	}
	return n, rej
}

func (s *Server) observePerformance(ctx context.Context, a args) (any, error) {
	pages := s.perf.Snapshots(urlParam.get(a), min(limitParam.get(a), perf.MaxPages))
	s.trail.mode(ctx, "observe", "performance", fmt.Sprintf("%d pages", len(pages)), nil)
	return &struct {
		riders
		Count int             `json:"count"`
		Pages []perf.Snapshot `json:"pages,omitempty"`
	}{Count: len(pages), Pages: pages}, nil
}

func (s *Server) analyzePerformance(ctx context.Context, a args) (any, error) {
	c := s.perf.Check(filterParam.get(a))
	s.trail.mode(ctx, "analyze", "performance", fmt.Sprintf("%s, %d pages", c.Verdict, len(c.Pages)), nil)
	return c, nil
}
