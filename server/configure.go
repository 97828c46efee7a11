package server

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/capture"
)

func configureTool() mcp.Tool {
	return mcp.NewTool("configure",
		mcp.WithDescription("Change Gasoline's state. clear: empty captured buffers."),
		mcp.WithDestructiveHintAnnotation(true),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithString("action", mcp.Required(), mcp.Enum("clear")),
		mcp.WithString("buffer", mcp.Description("clear: one buffer (default all)"), mcp.Enum(append([]string{"all"}, capture.Kinds...)...)),
	)
}

func (s *Server) configureModes() []mode {
	return []mode{{"clear", s.configureClear}}
}

func (s *Server) configureClear(_ context.Context, a args) (any, error) {
	buf, err := a.enum("buffer", append([]string{"all"}, capture.Kinds...)...)
	if err != nil {
		return nil, err
	}
	if buf == "" {
		buf = "all"
	}
	var kinds []string
	if buf != "all" {
		kinds = []string{buf}
	}
	if err := s.store.Clear(kinds...); err != nil {
		return nil, err
	}
	return map[string]any{"cleared": buf, "buffers": s.store.Stats()}, nil
}
