package server

import (
	"context"
	"fmt"
	"time"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/history"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// historyState is the capture history kept on disk for the port's next
// owner (history.go, pages.go).
type historyState struct {
	log  *history.Log  // nil: buffers in memory only
	info *wire.History // what openHistory restored
}

// historyBuffers are the rings kept on disk: every buffer observe reads
// (websocket_status is rebuilt from the events), each with its in-memory
// capacity and a byte cap, 16 MiB in all, that holds that many entries of
// the sizes pages produce; entries at their size caps fill it sooner.
var historyBuffers = []history.Buffer{
	{Name: capture.KindLogs, Entries: capture.LogCap, Bytes: 6 << 20},
	{Name: capture.KindErrors, Entries: capture.ErrorCap, Bytes: 2 << 20},
	{Name: capture.KindNetwork, Entries: capture.NetworkCap, Bytes: 2 << 20},
	{Name: capture.KindBodies, Entries: capture.BodyCap, Bytes: 4 << 20},
	{Name: capture.KindWSEvents, Entries: capture.WSEventCap, Bytes: 1 << 20},
	{Name: capture.KindActions, Entries: capture.ActionCap, Bytes: 1 << 20},
}

// historyWait bounds how long a new owner waits for its predecessor to
// write its last records; past it, this server keeps its history in
// memory only. A predecessor's shutdown takes at most about 3 s.
const historyWait = 5 * time.Second

// openHistory restores the buffers the previous owner of the port held,
// before this server answers anyone, and saves every entry from now on.
// Entries are saved after the store sanitised them: the disk never holds
// what capture's scrubbing removed.
func (s *Server) openHistory() {
	if s.cfg.HistoryDir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), historyWait)
	defer cancel()
	h, rest, err := history.Open(ctx, s.cfg.HistoryDir, history.Options{Buffers: historyBuffers, Log: s.cfg.Log}, s.store.Import)
	if err != nil {
		fmt.Fprintf(s.cfg.Log, "gasoline: warning: %v; capture history is kept in memory only\n", err)
		return
	}
	s.store.Resume(rest.Seq)
	s.hist.log = h
	s.tracked.restore()
	s.pointed.restore(s.cfg.HistoryDir)
	s.hist.info = historyView(rest)
	if rest.Entries > 0 {
		s.trail.write(audit.Event{Event: "history_restored", Reason: fmt.Sprintf("%d entries from pid %d", rest.Entries, rest.Prev.PID), Source: "server"})
	}
	s.store.Subscribe(func(e capture.Event) {
		for _, b := range e.Buffers() {
			h.Append(b, e.Seq, e.Entry)
		}
	})
	s.store.OnClear(h.Clear)
}

// closeHistory writes the last entries and hands the directory on.
func (s *Server) closeHistory() {
	if s.hist.log == nil {
		return
	}
	s.pointed.close()
	if err := s.hist.log.Close(); err != nil {
		fmt.Fprintf(s.cfg.Log, "gasoline: warning: %v\n", err)
	}
}

// settle returns once the history has written what ingest stored, so the
// extension hears "accepted" only for entries a SIGKILL cannot take (it
// keeps, and sends again, what was not accepted).
func (h *historyState) settle() {
	if h.log != nil {
		h.log.Commit()
	}
}

// historyView is what /health says about the history.
func historyView(r history.Restored) *wire.History {
	v := &wire.History{Path: r.Dir, Restored: r.Entries, Skipped: r.Skipped}
	if r.Entries == 0 {
		return v
	}
	v.FromPID = r.Prev.PID
	v.At = time.Now().UTC().Format(capture.TimeLayout)
	v.Previous = "crashed or killed"
	if r.Prev.Clean {
		v.Previous = "quit"
	}
	if !r.Prev.Saved.IsZero() {
		v.Saved = r.Prev.Saved.Format(capture.TimeLayout)
	}
	return v
}

// cursorReset is what a buffer read says when its cursor could not be
// honoured (capture.Result.Reset).
const cursorReset = "after is from a previous Gasoline server whose last entries were not kept: " +
	"entries may be missing between it and these. Go on with cursor."
