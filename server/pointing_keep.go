package server

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/gasoline-dev/gasoline/features/history"
)

// pointedKeeper writes the pointing board to history.PointedFile for the
// port's next owner. A read (an observe that marks entries read) only asks
// for a write, done on its own goroutine, so observe never waits for the
// disk; the human's point is written before it is answered, so a SIGKILL
// right after cannot take it.
type pointedKeeper struct {
	mu     sync.Mutex  // orders the writes; closed is under it
	closed bool        // the history was handed on: never write again
	asked  atomic.Bool // a write is coming that will see the board as it is now
}

// keepPointed asks for the board to be written, off the caller's path.
func (s *Server) keepPointed() {
	if s.hist.log == nil || s.hist.point.asked.Swap(true) {
		return
	}
	go s.writePointed()
}

// writePointed writes the board as it is now.
func (s *Server) writePointed() {
	k := &s.hist.point
	k.mu.Lock()
	defer k.mu.Unlock()
	k.asked.Store(false) // changes from here on ask for another write
	if k.closed || s.hist.log == nil {
		return
	}
	if err := history.SavePointed(s.cfg.HistoryDir, s.pointed); err != nil {
		fmt.Fprintf(s.cfg.Log, "gasoline: warning: keep what the human pointed at: %v\n", err)
	}
}

// closePointed writes the board a last time, before the history is handed
// on; a write asked for later does nothing.
func (s *Server) closePointed() {
	s.writePointed()
	s.hist.point.mu.Lock()
	s.hist.point.closed = true
	s.hist.point.mu.Unlock()
}

// restorePointed takes the board the previous owner kept. What cannot be
// read is left behind with a line in the log: the board only informs the
// AI, it decides nothing, so the server serves without it.
func (s *Server) restorePointed() {
	n, skipped, err := history.LoadPointed(s.cfg.HistoryDir, s.pointed)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		fmt.Fprintf(s.cfg.Log, "gasoline: warning: what the human pointed at is not restored: %v\n", err)
	case skipped > 0:
		fmt.Fprintf(s.cfg.Log, "gasoline: warning: %d of what the human pointed at not restored (counted as dropped)\n", skipped)
	}
	if n > 0 {
		fmt.Fprintf(s.cfg.Log, "gasoline: restored %d entries the human pointed at\n", n)
	}
}
