package server

import (
	"context"

	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/sarif"
)

func (s *Server) generateTool() tool {
	return tool{
		name: "generate",
		desc: "Produce an artifact from what was captured. sarif: the latest accessibility audit as SARIF 2.1.0; " +
			"test: Playwright test of recorded actions; har: HAR 1.2 file.",
		hints:    readOnly,
		selector: newParam[string]("format", ""),
		params:   []declared{filterParam, nameParam, baseURLParam, mockParam, shotsParam},
		modes:    []mode{{"sarif", s.generateSARIF}, {"test", s.generateTest}, {"har", s.generateHAR}},
	}
}

func (s *Server) generateSARIF(context.Context, args) (any, error) {
	r, ok := s.audits.Latest()
	if !ok {
		return nil, problem.New(problem.NotFound, `no accessibility audit yet: call analyze{target:"accessibility"} first`)
	}
	return sarif.FromAudit(r), nil
}
