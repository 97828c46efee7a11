package server

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/sarif"
)

func generateTool() mcp.Tool {
	return mcp.NewTool("generate",
		mcp.WithDescription("Produce an artifact from what was captured. sarif: the latest accessibility audit as SARIF 2.1.0."),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithString("format", mcp.Required(), mcp.Enum("sarif")),
	)
}

func (s *Server) generateModes() []mode {
	return []mode{{"sarif", s.generateSARIF}}
}

func (s *Server) generateSARIF(context.Context, args) (any, error) {
	r, ok := s.audits.Latest()
	if !ok {
		return nil, problem.New(problem.NotFound, `no accessibility audit yet: call analyze{target:"accessibility"} first`)
	}
	return sarif.FromAudit(r), nil
}
