package server

import (
	"context"

	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/sarif"
)

func (s *Server) generateTool() tool {
	return tool{
		name:     "generate",
		desc:     "Produce an artifact from what was captured. sarif: the latest accessibility audit as SARIF 2.1.0.",
		hints:    readOnly,
		selector: newParam[string]("format", ""),
		modes:    []mode{{"sarif", s.generateSARIF}},
	}
}

func (s *Server) generateSARIF(context.Context, args) (any, error) {
	r, ok := s.audits.Latest()
	if !ok {
		return nil, problem.New(problem.NotFound, `no accessibility audit yet: call analyze{target:"accessibility"} first`)
	}
	return sarif.FromAudit(r), nil
}
