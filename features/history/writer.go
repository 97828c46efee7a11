package history

import (
	"errors"
	"fmt"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Commit returns once everything appended before the call is written (to
// the kernel), or the log is stopped or closed. The caller writes itself
// unless a write in progress took its entries: no hand-over to another
// goroutine stands between an ingest and its answer, and ingests that
// arrive together share one write.
func (l *Log) Commit() {
	l.mu.Lock()
	target := l.queued
	l.mu.Unlock()
	l.writing.Lock()
	defer l.writing.Unlock()
	l.mu.Lock()
	done := l.written >= target || l.closed || l.stopped
	l.mu.Unlock()
	if !done {
		l.fail(l.write())
	}
}

// fail stops the history after a write error, and says so once.
func (l *Log) fail(err error) {
	if err == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	l.stopped = true
	fmt.Fprintf(l.warn, "gasoline: warning: %v; capture history is no longer saved\n", err)
}

// run writes what nobody committed every l.every, syncs every l.syncs
// writes, and writes and syncs a last time when the log closes.
func (l *Log) run() {
	defer close(l.done)
	// Say who owns the directory now, off the path to the first answer
	// (the write is synced); Open took l.writing for this.
	l.fail(writeOwner(l.dir, l.owner))
	l.writing.Unlock()
	t := time.NewTicker(l.every)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-t.C:
		case <-l.quit:
			l.writing.Lock()
			l.fail(errors.Join(l.write(), l.syncAll()))
			l.writing.Unlock()
			return
		}
		l.writing.Lock()
		l.fail(l.write())
		if n%l.syncs == 0 {
			l.fail(l.syncAll())
		}
		l.writing.Unlock()
	}
}

// appender is an entry that encodes itself as encodeOpts would, faster.
type appender interface{ AppendJSON([]byte) []byte }

// encodeOpts: omitempty as the AI's results have it (no zero numbers on
// disk), and a string that is not UTF-8 saved rather than lost.
var encodeOpts = jsonv2.JoinOptions(jsontext.AllowInvalidUTF8(true), jsonv1.OmitEmptyWithLegacySemantics(true))

// write takes what is queued and appends it, buffer by buffer. The caller
// holds l.writing.
func (l *Log) write() error {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return nil
	}
	var taken map[string][]item
	for name, q := range l.queues {
		if len(q.items) > 0 {
			if taken == nil {
				taken = make(map[string][]item, len(l.queues))
			}
			taken[name] = q.take()
		}
	}
	cleared := l.cleared
	if len(cleared) > 0 {
		l.cleared = map[string]bool{}
	}
	l.owner.Seq = max(l.owner.Seq, l.high)
	target := l.queued
	l.mu.Unlock()
	if taken != nil || len(cleared) > 0 {
		if err := l.append(taken, cleared); err != nil {
			return err
		}
	}
	l.mu.Lock()
	l.written = max(l.written, target)
	l.mu.Unlock()
	return nil
}

// append writes what write took, in one call per buffer.
func (l *Log) append(taken map[string][]item, cleared map[string]bool) error {
	for _, name := range l.order {
		r := l.rings[name]
		if cleared[name] {
			if err := r.reset(); err != nil {
				return err
			}
		}
		for _, it := range taken[name] {
			l.enc.Reset()
			if a, ok := it.entry.(appender); ok {
				l.enc.Write(a.AppendJSON(l.enc.AvailableBuffer()))
			} else if jsonv2.MarshalWrite(&l.enc, it.entry, encodeOpts) != nil {
				continue // a value JSON cannot carry is not worth the history
			}
			if err := r.add(it.seq, l.enc.Bytes()); err != nil {
				return err
			}
		}
		if err := r.flush(); err != nil {
			return err
		}
	}
	return nil
}

// syncAll syncs the segments written since the last sync, then notes the
// sequence reached in the owner file. The caller holds l.writing.
func (l *Log) syncAll() error {
	wrote := false
	for _, name := range l.order {
		r := l.rings[name]
		wrote = wrote || r.dirty
		if err := r.sync(); err != nil {
			return err
		}
	}
	if !wrote {
		return nil
	}
	l.owner.Saved = time.Now().UTC()
	return writeOwner(l.dir, l.owner)
}
