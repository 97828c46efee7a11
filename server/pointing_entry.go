package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/pointing"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// pointedEntry finds the stored entry the dashboard's row names and
// returns it whole, with a one-line summary. A row whose entry the server no longer
// holds is refused: what reaches the AI is always the server's copy.
func (s *Server) pointedEntry(kind string, sent json.RawMessage) (json.RawMessage, string, error) {
	if len(sent) == 0 {
		return nil, "", problem.New(problem.InvalidParam, `want {"kind": …, "entry": the row's entry, "note": …}`)
	}
	switch kind {
	case pointing.KindConsole, pointing.KindError:
		var row capture.LogEntry
		if err := json.Unmarshal(sent, &row); err != nil {
			return nil, "", problem.New(problem.InvalidParam, "entry: %v", err)
		}
		e, ok := s.store.FindLog(row, kind == pointing.KindError)
		if !ok {
			return nil, "", gone()
		}
		return marshalled(e, e.Level+" "+e.Message)
	case pointing.KindNetwork:
		var row capture.NetworkEntry
		if err := json.Unmarshal(sent, &row); err != nil {
			return nil, "", problem.New(problem.InvalidParam, "entry: %v", err)
		}
		e, ok := s.store.FindNetwork(row)
		if !ok {
			return nil, "", gone()
		}
		return s.requestWithBodies(e)
	case pointing.KindWebSocket:
		var row capture.WSEvent
		if err := json.Unmarshal(sent, &row); err != nil {
			return nil, "", problem.New(problem.InvalidParam, "entry: %v", err)
		}
		e, ok := s.store.FindWSEvent(row)
		if !ok {
			return nil, "", gone()
		}
		return marshalled(e, strings.TrimSpace(fmt.Sprintf("%s %s %s %s", e.Event, e.Direction, e.URL, capture.Truncate(e.Data, 80))))
	case pointing.KindAction:
		var row capture.Action
		if err := json.Unmarshal(sent, &row); err != nil {
			return nil, "", problem.New(problem.InvalidParam, "entry: %v", err)
		}
		e, ok := s.store.FindAction(row)
		if !ok {
			return nil, "", gone()
		}
		return marshalled(e, strings.TrimSpace(e.Type+" "+e.Selector+" "+e.URL))
	case pointing.KindAudit:
		var ev audit.Event
		if err := json.Unmarshal(sent, &ev); err != nil || ev.Event == "" {
			return nil, "", problem.New(problem.InvalidParam, "entry: want an audit line")
		}
		return marshalled(ev, strings.TrimSpace(ev.Event+" "+ev.Action))
	}
	return nil, "", problem.New(problem.InvalidParam, "kind %q: the dashboard points at one of console, error, network, websocket, action, audit", kind)
}

// requestWithBodies is a request with its captured headers and bodies, in
// one object.
func (s *Server) requestWithBodies(e capture.NetworkEntry) (json.RawMessage, string, error) {
	summary := fmt.Sprintf("%s %s → %d", e.Method, e.URL, e.Status)
	if e.Status == 0 {
		summary = fmt.Sprintf("%s %s → failed %s", e.Method, e.URL, e.Error)
	}
	bodies := s.store.Bodies(capture.Query{All: true, TabID: e.TabID}).Entries
	i := capture.BodyFor(e, bodies, nil)
	if i < 0 {
		return marshalled(e, summary)
	}
	b := bodies[i]
	return marshalled(struct {
		capture.NetworkEntry
		ContentType     string            `json:"content_type,omitempty"`
		RequestBody     string            `json:"request_body,omitempty"`
		ResponseBody    string            `json:"response_body,omitempty"`
		RequestHeaders  map[string]string `json:"request_headers,omitempty"`
		ResponseHeaders map[string]string `json:"response_headers,omitempty"`
		Truncated       bool              `json:"truncated,omitempty"`
	}{e, b.ContentType, b.RequestBody, b.ResponseBody, b.RequestHeaders, b.ResponseHeaders, b.Truncated}, summary)
}

func gone() error {
	return problem.New(problem.NotFound, "that entry is no longer in the server's buffers")
}

func marshalled(v any, summary string) (json.RawMessage, string, error) {
	b, err := json.Marshal(v)
	return b, summary, err
}
