package tui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// maxFrame bounds one SSE line; an entry carries at most a capped body.
const maxFrame = 16 << 20

// errStreamEnded means the server closed the event stream.
var errStreamEnded = errors.New("the event stream ended")

// readStream reads the server's event stream until it ends, turning each
// frame into a typed message for push. beat is called on every line, so a
// watchdog can tell a silent server from a quiet one.
func readStream(r io.Reader, push func(tea.Msg), beat func()) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxFrame)
	var event string
	var data []byte
	for sc.Scan() {
		beat()
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if event != "" {
				if msg := decodeEvent(event, data); msg != nil {
					push(msg)
				}
			}
			event, data = "", data[:0]
		case bytes.HasPrefix(line, []byte("event:")):
			event = string(bytes.TrimSpace(line[len("event:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(line[len("data:"):], []byte(" "))...)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errStreamEnded
}

// decodeEvent turns one SSE event into a message; nil for events the
// dashboard does not show and for data it cannot read.
func decodeEvent(event string, data []byte) tea.Msg {
	switch event {
	case wire.EventStatus:
		var h Health
		if json.Unmarshal(data, &h) == nil {
			return StatusMsg(h)
		}
	case wire.EventOverrides:
		var o Overrides
		if json.Unmarshal(data, &o) == nil {
			return OverridesMsg(o)
		}
	case wire.EventPilot:
		var p Pilot
		if json.Unmarshal(data, &p) == nil {
			return PilotMsg(p)
		}
	case wire.EventApprovals:
		var a Approvals
		if json.Unmarshal(data, &a) == nil {
			return ApprovalsMsg(a)
		}
	case wire.EventOrigins:
		var o OriginsMsg
		if json.Unmarshal(data, &o) == nil {
			return o
		}
	case wire.EventDropped:
		var d wire.Dropped
		if json.Unmarshal(data, &d) == nil {
			return DroppedMsg{Count: int(d.Count)}
		}
	case wire.EventStreamed:
		var s wire.Streamed
		if json.Unmarshal(data, &s) == nil {
			return StreamedMsg(s)
		}
	case wire.EventPointed:
		var p PointedMsg
		if json.Unmarshal(data, &p) == nil {
			return p
		}
	case wire.EventEntry:
		return decodeEntry(data)
	case wire.EventPageLoad:
		var l PageLoadMsg
		if json.Unmarshal(data, &l) == nil {
			return l
		}
	case wire.EventPageLeft:
		var p wire.PageLeft
		if json.Unmarshal(data, &p) == nil && p.Tab > 0 {
			return PageLeftMsg(p)
		}
	}
	return decodeRead(event, data)
}

// seqEntry is one entry event with its place in its buffer's sequence, so
// a reconnect's backlog does not show entries twice.
type seqEntry struct {
	kind  string
	seq   uint64
	entry EntriesMsg
}

// decodeEntry reads an entry event; kinds the dashboard does not show
// (errors, a copy of the error logs) are skipped before their entry is
// decoded.
func decodeEntry(data []byte) tea.Msg {
	var ev struct {
		Kind  string          `json:"kind"`
		Seq   uint64          `json:"seq"`
		Entry json.RawMessage `json:"entry"`
	}
	if json.Unmarshal(data, &ev) != nil {
		return nil
	}
	out := seqEntry{kind: ev.Kind, seq: ev.Seq}
	switch ev.Kind {
	case capture.KindLogs:
		var e capture.LogEntry
		if json.Unmarshal(ev.Entry, &e) != nil {
			return nil
		}
		out.entry.Logs = []capture.LogEntry{e}
	case capture.KindNetwork:
		var e capture.NetworkEntry
		if json.Unmarshal(ev.Entry, &e) != nil {
			return nil
		}
		out.entry.Network = []capture.NetworkEntry{e}
	case capture.KindWSEvents:
		var e capture.WSEvent
		if json.Unmarshal(ev.Entry, &e) != nil {
			return nil
		}
		out.entry.WS = []capture.WSEvent{e}
	case capture.KindActions:
		var e capture.Action
		if json.Unmarshal(ev.Entry, &e) != nil {
			return nil
		}
		out.entry.Actions = []capture.Action{e}
	case capture.KindBodies:
		var e capture.NetworkBody
		if json.Unmarshal(ev.Entry, &e) != nil {
			return nil
		}
		out.entry.Bodies = []capture.NetworkBody{e}
	default:
		return nil
	}
	return out
}

// dedup passes on each entry once: sequence numbers rise within a kind,
// across server restarts too (they start from the clock), so anything at
// or below the last one seen is a repeat from a reconnect's backlog.
type dedup map[string]uint64

func (d dedup) fresh(e seqEntry) bool {
	if e.seq != 0 && e.seq <= d[e.kind] {
		return false
	}
	d[e.kind] = e.seq
	return true
}
