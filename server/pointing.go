package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/pointing"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/redact"
	"github.com/gasoline-dev/gasoline/features/streaming"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// pointedLead starts every line that tells an AI what the human pointed at.
const pointedLead = "the human pointed at: "

// handlePoint is POST /api/point: the human sends the dashboard's
// selected row to the AI. The row names an entry; what the AI gets is the
// server's own copy of it (redacted at capture), a request with its
// bodies. An audit line is the human's own and goes as the dashboard read it.
func (s *Server) handlePoint(w http.ResponseWriter, r *http.Request) {
	var req wire.Point
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	entry, summary, err := s.pointedEntry(req.Kind, req.Entry)
	if err != nil {
		writeProblem(w, err)
		return
	}
	s.point(w, req.Kind, entry, summary, req.Note, "human")
}

// handlePointElement is POST /point: the element the human picked in the
// page, from the extension. Any process of the user can send the
// extension's Origin, so what comes here is the extension's word, not the
// human's: its audit line says source "extension", and picks come at a
// person's pace (pointing.PicksPerSecond), the rest refused and counted in
// health (extension.picks_refused) before anything is read or written.
func (s *Server) handlePointElement(w http.ResponseWriter, r *http.Request) {
	if !s.picks.Allow(time.Now()) {
		writeProblem(w, problem.New(problem.RateLimited, "more than %d picks a second: a person picks one element at a time; retry in a second",
			pointing.PicksPerSecond))
		return
	}
	var req struct {
		Element wire.Element `json:"element"`
		Note    string       `json:"note,omitempty"`
	}
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	el := req.Element
	if el.Selector == "" {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"element": {"selector": …, "box": …}}`))
		return
	}
	el.Selector = capture.Truncate(el.Selector, capture.MaxText*5)
	el.Text = capture.Truncate(redact.Message(capture.Truncate(el.Text, capture.MaxText*2)), capture.MaxText)
	el.Page = capture.Truncate(redact.URL(el.Page), capture.MaxURL)
	if len(el.Styles) > maxStyles {
		writeProblem(w, problem.New(problem.TooLarge, "styles: %d properties, at most %d", len(el.Styles), maxStyles))
		return
	}
	for k, v := range el.Styles {
		el.Styles[k] = capture.Truncate(v, 200)
	}
	el.ScreenshotSkipped = capture.Truncate(el.ScreenshotSkipped, capture.MaxText)
	if el.Screenshot != "" {
		el.Screenshot, el.ScreenshotSkipped = s.savePointShot(el.Tab, el.Screenshot)
	}
	b, err := json.Marshal(el)
	if err != nil {
		writeProblem(w, err)
		return
	}
	s.point(w, pointing.KindElement, b, el.Selector, req.Note, "extension")
}

// maxStyles bounds the computed styles an element carries.
const maxStyles = 64

// savePointShot keeps the picked element's cropped screenshot in the
// screenshots folder and returns its file name, or why it was not kept.
func (s *Server) savePointShot(tab int, image string) (file, skipped string) {
	if s.shots == nil {
		return "", "screenshots are disabled on this server"
	}
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(image, "data:image/png;base64,"))
	if err != nil {
		return "", "the screenshot was not a base64 PNG"
	}
	file, err = s.shots.Save(time.Now(), tab, png)
	if err != nil {
		return "", fmt.Sprintf("not kept: %v", err)
	}
	return file, ""
}

// point puts the entry on the board, tells the streaming sessions and the
// dashboard, and answers the board's state. source is the audit line's:
// "human" for the token-holding dashboard, "extension" for a pick in the
// page (an element_picked line, which never goes to the human's own file).
func (s *Server) point(w http.ResponseWriter, kind string, entry json.RawMessage, summary, note, source string) {
	e, err := s.pointed.Add(kind, entry, summary, note)
	if err != nil {
		writeProblem(w, problem.New(problem.InvalidParam, "%v", err))
		return
	}
	event := "human_pointed"
	if source != "human" {
		event = "element_picked"
	}
	s.audit(audit.Event{Event: event, Action: kind, Reason: e.Summary, Source: source})
	s.writePointed() // before the human hears it was sent
	sent := s.notifyPointed(e)
	st := s.pointedState()
	st.Streamed = sent
	s.events.publish(wire.EventPointed, st)
	writeJSON(w, http.StatusOK, st)
}

// clearPointed takes everything off the board, for the human (the
// dashboard) or the AI (configure clear pointed), keeps the empty board
// for the port's next owner and tells the dashboards; it says how many
// entries it took.
func (s *Server) clearPointed() int {
	n := s.pointed.Clear()
	s.writePointed()
	s.events.publish(wire.EventPointed, s.pointedState())
	return n
}

// handleClearPointed is POST /api/point/clear: the human clears the board.
func (s *Server) handleClearPointed(w http.ResponseWriter, _ *http.Request) {
	n := s.clearPointed()
	s.audit(audit.Event{Event: "buffers_cleared", Name: pointedBuffer, Result: "ok", Source: "human", Agent: "dashboard"})
	writeJSON(w, http.StatusOK, map[string]any{"cleared": pointedBuffer, "entries": n})
}

// notifyPointed sends the entry at once to every session that has
// streaming on, and says how many it reached.
func (s *Server) notifyPointed(e pointing.Entry) int {
	s.streams.mu.Lock()
	var ids []string
	for id, ss := range s.streams.by {
		if ss.st.Config().Enabled {
			ids = append(ids, id)
		}
	}
	s.streams.mu.Unlock()
	params := map[string]any{
		"category":  "pointed",
		"severity":  "info",
		"message":   pointedLine(e),
		"timestamp": e.When(),
		"pointed":   e,
	}
	sent := 0
	for _, id := range ids {
		if err := s.mcp.SendNotificationToSpecificClient(id, streaming.Method, params); err != nil {
			fmt.Fprintf(s.cfg.Log, "gasoline: what the human pointed at did not reach a session: %v\n", err)
			continue
		}
		sent++
	}
	return sent
}

// pointedState is what the dashboard shows of the board.
func (s *Server) pointedState() wire.Pointed {
	var st wire.Pointed
	if e, ok := s.pointed.Newest(); ok {
		st.Newest = &wire.PointedEntry{ID: e.ID, Kind: e.Kind, Summary: e.Summary, Note: e.Note, At: e.When(),
			ReadBy: e.ReadBy, ReadMore: e.ReadMore}
	}
	st.Dropped = s.pointed.Dropped()
	return st
}

// observePointed is observe{what:"pointed"}: every entry, newest first.
func (s *Server) observePointed(ctx context.Context, _ args) (any, error) {
	list, dropped := s.pointed.List(sessionID(ctx), agent(ctx))
	if sessionID(ctx) != "" && len(list) > 0 {
		s.events.publish(wire.EventPointed, s.pointedState())
		s.keepPointed() // who read it
	}
	return &struct {
		riders
		Count   int              `json:"count"`
		Dropped int              `json:"dropped,omitempty"`
		Entries []pointing.Entry `json:"entries,omitempty"`
	}{Count: len(list), Dropped: dropped, Entries: list}, nil
}

// pointedLines are what the human pointed at and the session has not
// read, a line each, for the top of an observe answer; reading them marks
// them read.
func (s *Server) pointedLines(ctx context.Context) []string {
	id := sessionID(ctx)
	if id == "" {
		return nil
	}
	unread := s.pointed.Unread(id, agent(ctx))
	if len(unread) == 0 {
		return nil
	}
	s.events.publish(wire.EventPointed, s.pointedState())
	s.keepPointed() // who read it
	lines := make([]string, len(unread))
	for i, e := range unread {
		lines[i] = pointedLine(e)
	}
	return lines
}

// pointedLine is one entry in a line: what, the note, and where the whole
// entry is.
func pointedLine(e pointing.Entry) string {
	line := pointedLead + e.Kind + " " + e.Summary
	if e.Note != "" {
		line += ` — their note: "` + e.Note + `"`
	}
	return line + fmt.Sprintf(" (observe what:\"pointed\", id %d)", e.ID)
}

func sessionID(ctx context.Context) string {
	if sess := server.ClientSessionFromContext(ctx); sess != nil {
		return sess.SessionID()
	}
	return ""
}
