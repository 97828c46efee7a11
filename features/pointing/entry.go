package pointing

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// Find finds the stored entry a dashboard row names and returns it whole,
// with a one-line summary. A row whose entry the store no longer holds is
// refused: what reaches the AI is always the server's copy (redacted at
// capture), never what the dashboard sent. An audit line is the human's own
// and goes as the dashboard read it.
func Find(store *capture.Store, kind string, sent json.RawMessage) (json.RawMessage, string, error) {
	if len(sent) == 0 {
		return nil, "", problem.New(problem.InvalidParam, `want {"kind": …, "entry": the row's entry, "note": …}`)
	}
	switch kind {
	case KindConsole, KindError:
		return found(sent, func(row capture.LogEntry) (any, string, bool) {
			e, ok := store.FindLog(row, kind == KindError)
			return e, e.Level + " " + e.Message, ok
		})
	case KindNetwork:
		return found(sent, func(row capture.NetworkEntry) (any, string, bool) {
			e, ok := store.FindNetwork(row)
			if !ok {
				return nil, "", false
			}
			v, summary := withBodies(store, e)
			return v, summary, true
		})
	case KindWebSocket:
		return found(sent, func(row capture.WSEvent) (any, string, bool) {
			e, ok := store.FindWSEvent(row)
			return e, strings.TrimSpace(fmt.Sprintf("%s %s %s %s", e.Event, e.Direction, e.URL, capture.Truncate(e.Data, 80))), ok
		})
	case KindAction:
		return found(sent, func(row capture.Action) (any, string, bool) {
			e, ok := store.FindAction(row)
			return e, strings.TrimSpace(e.Type + " " + e.Selector + " " + e.URL), ok
		})
	case KindAudit:
		return found(sent, func(ev audit.Event) (any, string, bool) {
			return ev, strings.TrimSpace(ev.Event + " " + ev.Action), true
		})
	}
	return nil, "", problem.New(problem.InvalidParam, "kind %q: the dashboard points at one of console, error, network, websocket, action, audit", kind)
}

// found decodes the row as a T, looks up its entry with find and encodes
// it: the row is decoded once, into the type its kind names.
func found[T any](sent json.RawMessage, find func(T) (any, string, bool)) (json.RawMessage, string, error) {
	var row T
	err := json.Unmarshal(sent, &row)
	if ev, ok := any(row).(audit.Event); ok && (err != nil || ev.Event == "") {
		return nil, "", problem.New(problem.InvalidParam, "entry: want an audit line")
	}
	if err != nil {
		return nil, "", problem.New(problem.InvalidParam, "entry: %v", err)
	}
	v, summary, ok := find(row)
	if !ok {
		return nil, "", problem.New(problem.NotFound, "that entry is no longer in the server's buffers")
	}
	b, err := json.Marshal(v)
	return b, summary, err
}

// request is a request with its captured headers and bodies in one object:
// the AI reads what was sent and answered where it reads the request.
type request struct {
	capture.NetworkEntry
	ContentType     string            `json:"content_type,omitempty"`
	RequestBody     string            `json:"request_body,omitempty"`
	ResponseBody    string            `json:"response_body,omitempty"`
	RequestHeaders  map[string]string `json:"request_headers,omitempty"`
	ResponseHeaders map[string]string `json:"response_headers,omitempty"`
	Truncated       bool              `json:"truncated,omitempty"`
}

// withBodies is the request with its bodies when the store holds them, and
// its summary.
func withBodies(store *capture.Store, e capture.NetworkEntry) (any, string) {
	summary := fmt.Sprintf("%s %s → %d", e.Method, e.URL, e.Status)
	if e.Status == 0 {
		summary = fmt.Sprintf("%s %s → failed %s", e.Method, e.URL, e.Error)
	}
	bodies := store.Bodies(capture.Query{All: true, TabID: e.TabID}).Entries
	i := capture.BodyFor(e, bodies, nil)
	if i < 0 {
		return e, summary
	}
	b := bodies[i]
	return request{e, b.ContentType, b.RequestBody, b.ResponseBody, b.RequestHeaders, b.ResponseHeaders, b.Truncated}, summary
}
