package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/capturectl"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// agent names the MCP client calling a tool, for the audit log.
func agent(ctx context.Context) string {
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		if n := s.GetClientInfo().Name; n != "" {
			return n
		}
	}
	return "unknown"
}

func configureTool() mcp.Tool {
	return mcp.NewTool("configure",
		mcp.WithDescription("Change Gasoline's state. capture: override capture settings for this session "+
			`({"ws_mode":"messages"}, or "reset"); at most one change per second; the human can revoke. clear: empty buffers.`),
		mcp.WithDestructiveHintAnnotation(true),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
		mcp.WithString("action", mcp.Required(), mcp.Enum("capture", "clear")),
		mcp.WithAny("settings", mcp.Description(`capture: object of log_level (error|warn|all), ws_mode (off|lifecycle|messages), `+
			`network_bodies, screenshot_on_error, action_replay (booleans); or "reset"`)),
		mcp.WithString("buffer", mcp.Description("clear: one buffer (default all)"), mcp.Enum(append([]string{"all"}, capture.Kinds...)...)),
	)
}

func (s *Server) configureModes() []mode {
	return []mode{{"capture", s.configureCapture}, {"clear", s.configureClear}}
}

func (s *Server) configureCapture(ctx context.Context, a args) (any, error) {
	who := agent(ctx)
	switch v := a["settings"].(type) {
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

// withAlerts adds the capture alerts this MCP session has not seen to an
// observe result: each alert reaches every session exactly once.
func (s *Server) withAlerts(ctx context.Context, v any) (any, error) {
	sess := server.ClientSessionFromContext(ctx)
	if sess == nil {
		return v, nil
	}
	s.alertMu.Lock()
	cursor, ok := s.alertCursors[sess.SessionID()]
	if !ok {
		cursor = s.control.AlertCursor()
	}
	alerts, next := s.control.AlertsSince(cursor)
	s.alertCursors[sess.SessionID()] = next
	s.alertMu.Unlock()
	if len(alerts) == 0 {
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	obj["alerts"], _ = json.Marshal(alerts)
	return obj, nil
}

// Overrides lists every setting's state.
func (s *Server) Overrides() capturectl.View { return s.control.View() }

func (s *Server) handleOverrides(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Overrides())
}

// vetoRequest names one setting, or all of them.
type vetoRequest struct {
	Setting string `json:"setting"`
	All     bool   `json:"all"`
}

func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	var req vetoRequest
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if req.Setting == "" && !req.All {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"setting": name} or {"all": true}`))
		return
	}
	done, err := s.control.Revoke(req.Setting)
	if err != nil {
		writeProblem(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"revoked": nonNil(done), "state": s.Overrides()})
}

func (s *Server) handleAllow(w http.ResponseWriter, r *http.Request) {
	var req vetoRequest
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if err := s.control.Allow(req.Setting); err != nil {
		writeProblem(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"allowed": req.Setting, "state": s.Overrides()})
}

// screenshotUpload is a PNG the extension captured for an error.
type screenshotUpload struct {
	Tab   int          `json:"tab"`
	TS    capture.Time `json:"ts"` // the error's time
	Image string       `json:"image"`
}

func (s *Server) handleScreenshot(w http.ResponseWriter, r *http.Request) {
	if s.shots == nil {
		writeProblem(w, problem.New(problem.NotFound, "screenshots are disabled on this server"))
		return
	}
	var up screenshotUpload
	if err := decodeBody(r, &up); err != nil {
		writeProblem(w, err)
		return
	}
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(up.Image, "data:image/png;base64,"))
	if err != nil {
		writeProblem(w, problem.New(problem.InvalidParam, "image: want a base64 PNG or a data:image/png URL"))
		return
	}
	if up.TS.IsZero() {
		up.TS.Time = time.Now()
	}
	file, err := s.shots.Save(up.TS.Time, up.Tab, png)
	if err != nil {
		writeProblem(w, problem.New(problem.InvalidParam, "%v", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"file": file, "attached": s.store.AttachScreenshot(up.Tab, up.TS, file)})
}
