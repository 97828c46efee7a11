package server

import (
	"context"

	"github.com/gasoline-dev/gasoline/features/capture"
)

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
