package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/capturectl"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// The parameters of configure's actions.
var (
	settingsParam = newParam[any]("settings", settingsDesc())
	bufferParam   = newParam[string]("buffer", "one buffer (default all)").
			oneOf(append([]string{"all", apiShapes, pointedBuffer}, capture.Kinds...)...)
)

// settingsDesc names every capture setting and its values, from the
// controller's own table.
func settingsDesc() string {
	var parts, bools []string
	for _, st := range capturectl.Settings {
		if st.Bool {
			bools = append(bools, st.Name)
		} else {
			parts = append(parts, fmt.Sprintf("%s (%s)", st.Name, strings.Join(st.Values, "|")))
		}
	}
	parts = append(parts, strings.Join(bools, ", ")+" (booleans)")
	return "object of " + strings.Join(parts, ", ") + `; or "reset"`
}

func (s *Server) configureTool() tool {
	return tool{
		name: "configure",
		desc: "Change Gasoline's state.",
		hints: []mcp.ToolOption{
			mcp.WithDestructiveHintAnnotation(true),
			mcp.WithIdempotentHintAnnotation(true),
			mcp.WithOpenWorldHintAnnotation(false),
		},
		selector: newParam[string]("action", ""),
		modes: []mode{
			{"capture", "overrides the human can revoke",
				[]declared{settingsParam}, s.configureCapture},
			{"clear", "empty buffers", []declared{bufferParam}, s.configureClear},
			{"streaming", "push notable events (default off)",
				[]declared{streamOnParam, streamEventsParam, throttleParam, urlFilterParam}, s.configureStreaming},
			{"track", "the tab this session reads", []declared{trackTabParam}, s.tabs.configureTrack},
		},
		audit: s.trail.configure, // refused calls and clears
	}
}

func (s *Server) configureCapture(ctx context.Context, a args) (any, error) {
	who := agent(ctx)
	switch v := settingsParam.get(a).(type) {
	case string:
		if v != "reset" {
			return nil, problem.New(problem.InvalidParam, `settings must be an object of settings or "reset"`)
		}
		if err := s.control.Reset(who); err != nil {
			return nil, err
		}
		return map[string]any{"reset": true, "capture_overrides": s.control.Values()}, nil
	case map[string]any:
		changes, err := s.control.Set(who, v)
		if err != nil {
			return nil, err
		}
		return map[string]any{"changed": changes, "capture_overrides": s.control.Values()}, nil
	}
	return nil, problem.New(problem.InvalidParam, `settings is required: an object such as {"ws_mode":"messages"}, or "reset"`)
}

// apiShapes is the buffer of API response shapes analyze{target:"api"} learned.
const apiShapes = "api_shapes"

// pointedBuffer is what the human pointed the AI at (observe pointed). It
// is not part of "all": a routine clear must not take down what the human
// sent before the AI read it.
const pointedBuffer = "pointed"

func (s *Server) configureClear(_ context.Context, a args) (any, error) {
	buf := bufferParam.get(a)
	if buf == "" {
		buf = "all"
	}
	if buf == pointedBuffer {
		return map[string]any{"cleared": buf, "entries": s.pointed.clear()}, nil
	}
	if buf == "all" || buf == apiShapes {
		s.an.contracts.Clear()
	}
	if buf == apiShapes {
		return map[string]any{"cleared": buf}, nil
	}
	var kinds []string
	if buf != "all" {
		kinds = []string{buf}
	}
	if err := s.store.Clear(kinds...); err != nil {
		return nil, err
	}
	if buf == "all" || buf == capture.KindLogs {
		s.filtered.clear()
	}
	return map[string]any{"cleared": buf, "buffers": s.store.Stats()}, nil
}
