package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/pointing"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/screenshots"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// pointedLead starts every line that tells an AI what the human pointed at.
const pointedLead = "the human pointed at: "

// board is what the human pointed the AI at (features/pointing): the
// human's points from the dashboard, the extension's picks in the page,
// the sessions' reads of them, and the board kept for the port's next
// owner (pointing_keep.go).
type board struct {
	*pointing.Board
	picks   *pointing.Pace // the extension's picks at a person's pace
	shots   *screenshots.Dir
	store   *capture.Store
	events  *hub
	streams *streams
	// notify sends an MCP notification to one session.
	notify func(session string, params map[string]any) error
	audit  func(audit.Event)
	log    io.Writer
	keep   pointedKeeper
}

func (b *board) routes(r routes) {
	r.human("POST /api/point", b.handlePoint)
	r.human("POST /api/point/clear", b.handleClear)
	r.handle("POST /point", b.handlePick)
}

// handlePoint is POST /api/point: the human sends the dashboard's
// selected row to the AI. The row names an entry; what the AI gets is the
// server's own copy of it (redacted at capture), a request with its
// bodies. An audit line is the human's own and goes as the dashboard read it.
func (b *board) handlePoint(w http.ResponseWriter, r *http.Request) {
	var req wire.Point
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	entry, summary, err := pointing.Find(b.store, req.Kind, req.Entry)
	if err != nil {
		writeProblem(w, err)
		return
	}
	b.point(w, req.Kind, entry, summary, req.Note, "human")
}

// handlePick is POST /point: the element the human picked in the
// page, from the extension. Any process of the user can send the
// extension's Origin, so what comes here is the extension's word, not the
// human's: its audit line says source "extension", and picks come at a
// person's pace (pointing.PicksPerSecond), the rest refused and counted in
// health (extension.picks_refused) before anything is read or written.
func (b *board) handlePick(w http.ResponseWriter, r *http.Request) {
	if !b.picks.Allow(time.Now()) {
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
	if err := el.Bound(); err != nil {
		writeProblem(w, err)
		return
	}
	if el.Screenshot != "" {
		el.Screenshot, el.ScreenshotSkipped = b.saveShot(el.Tab, el.Screenshot)
	}
	raw, err := json.Marshal(el)
	if err != nil {
		writeProblem(w, err)
		return
	}
	b.point(w, pointing.KindElement, raw, el.Selector, req.Note, "extension")
}

// saveShot keeps the picked element's cropped screenshot in the
// screenshots folder and returns its file name, or why it was not kept.
func (b *board) saveShot(tab int, image string) (file, skipped string) {
	if b.shots == nil {
		return "", "screenshots are disabled on this server"
	}
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(image, "data:image/png;base64,"))
	if err != nil {
		return "", "the screenshot was not a base64 PNG"
	}
	file, err = b.shots.Save(time.Now(), tab, png)
	if err != nil {
		return "", fmt.Sprintf("not kept: %v", err)
	}
	return file, ""
}

// point puts the entry on the board, tells the streaming sessions and the
// dashboard, and answers the board's state. source is the audit line's:
// "human" for the token-holding dashboard, "extension" for a pick in the
// page (an element_picked line, which never goes to the human's own file).
func (b *board) point(w http.ResponseWriter, kind string, entry json.RawMessage, summary, note, source string) {
	e, err := b.Add(kind, entry, summary, note)
	if err != nil {
		writeProblem(w, problem.New(problem.InvalidParam, "%v", err))
		return
	}
	event := "human_pointed"
	if source != "human" {
		event = "element_picked"
	}
	b.audit(audit.Event{Event: event, Action: kind, Reason: e.Summary, Source: source})
	b.write() // before the human hears it was sent
	sent := b.notifyStreaming(e)
	st := b.state()
	st.Streamed = sent
	b.events.publish(wire.EventPointed, st)
	writeJSON(w, http.StatusOK, st)
}

// clear takes everything off the board, for the human (the
// dashboard) or the AI (configure clear pointed), keeps the empty board
// for the port's next owner and tells the dashboards; it says how many
// entries it took.
func (b *board) clear() int {
	n := b.Clear()
	b.write()
	b.events.publish(wire.EventPointed, b.state())
	return n
}

// handleClear is POST /api/point/clear: the human clears the board.
func (b *board) handleClear(w http.ResponseWriter, _ *http.Request) {
	n := b.clear()
	b.audit(audit.Event{Event: "buffers_cleared", Name: pointedBuffer, Result: "ok", Source: "human", Agent: "dashboard"})
	writeJSON(w, http.StatusOK, map[string]any{"cleared": pointedBuffer, "entries": n})
}

// notifyStreaming sends the entry at once to every session that has
// streaming on, and says how many it reached.
func (b *board) notifyStreaming(e pointing.Entry) int {
	ids := b.streams.enabled()
	params := map[string]any{
		"category":  "pointed",
		"severity":  "info",
		"message":   pointedLine(e),
		"timestamp": e.When(),
		"pointed":   e,
	}
	sent := 0
	for _, id := range ids {
		if err := b.notify(id, params); err != nil {
			fmt.Fprintf(b.log, "gasoline: what the human pointed at did not reach a session: %v\n", err)
			continue
		}
		sent++
	}
	return sent
}

// state is what the dashboard shows of the board.
func (b *board) state() wire.Pointed {
	var st wire.Pointed
	if e, ok := b.Newest(); ok {
		st.Newest = &wire.PointedEntry{ID: e.ID, Kind: e.Kind, Summary: e.Summary, Note: e.Note, At: e.When(),
			ReadBy: e.ReadBy, ReadMore: e.ReadMore}
	}
	st.Dropped = b.Dropped()
	return st
}

// observe is observe{what:"pointed"}: every entry, newest first.
func (b *board) observe(ctx context.Context, _ args) (any, error) {
	list, dropped := b.List(sessionID(ctx), agent(ctx))
	if sessionID(ctx) != "" && len(list) > 0 {
		b.events.publish(wire.EventPointed, b.state())
		b.keepSoon() // who read it
	}
	return &struct {
		riders
		Count   int              `json:"count"`
		Dropped int              `json:"dropped,omitempty"`
		Entries []pointing.Entry `json:"entries,omitempty"`
	}{Count: len(list), Dropped: dropped, Entries: list}, nil
}

// unreadLines are what the human pointed at and the session has not
// read, a line each, for the top of an observe answer; reading them marks
// them read.
func (b *board) unreadLines(ctx context.Context) []string {
	id := sessionID(ctx)
	if id == "" {
		return nil
	}
	unread := b.Unread(id, agent(ctx))
	if len(unread) == 0 {
		return nil
	}
	b.events.publish(wire.EventPointed, b.state())
	b.keepSoon() // who read it
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
