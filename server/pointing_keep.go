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
	// dir is the history folder, set once when the history opens before
	// the server serves; "": the board is kept in memory only.
	dir    string
	mu     sync.Mutex  // orders the writes; closed is under it
	closed bool        // the history was handed on: never write again
	asked  atomic.Bool // a write is coming that will see the board as it is now
}

// keepSoon asks for the board to be written, off the caller's path.
func (b *board) keepSoon() {
	if b.keep.dir == "" || b.keep.asked.Swap(true) {
		return
	}
	go b.write()
}

// write writes the board as it is now.
func (b *board) write() {
	k := &b.keep
	k.mu.Lock()
	defer k.mu.Unlock()
	k.asked.Store(false) // changes from here on ask for another write
	if k.closed || k.dir == "" {
		return
	}
	if err := history.SavePointed(k.dir, b.Board); err != nil {
		fmt.Fprintf(b.log, "gasoline: warning: keep what the human pointed at: %v\n", err)
	}
}

// close writes the board a last time, before the history is handed on; a
// write asked for later does nothing.
func (b *board) close() {
	b.write()
	b.keep.mu.Lock()
	b.keep.closed = true
	b.keep.mu.Unlock()
}

// restore takes the board the previous owner kept in the history folder
// dir, and keeps it there from now on. What cannot be read is left behind
// with a line in the log: the board only informs the AI, it decides
// nothing, so the server serves without it.
func (b *board) restore(dir string) {
	b.keep.dir = dir
	n, skipped, err := history.LoadPointed(dir, b.Board)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		fmt.Fprintf(b.log, "gasoline: warning: what the human pointed at is not restored: %v\n", err)
	case skipped > 0:
		fmt.Fprintf(b.log, "gasoline: warning: %d of what the human pointed at not restored (counted as dropped)\n", skipped)
	}
	if n > 0 {
		fmt.Fprintf(b.log, "gasoline: restored %d entries the human pointed at\n", n)
	}
}
