// Package history keeps on disk what the capture buffers hold, so that the
// next owner of the port — after a clean quit, a takeover or a SIGKILL —
// starts with the history the AI could already read.
//
// Each buffer is a byte-bounded ring of two segment files holding
// length-prefixed, checksummed records of entries that were already
// scrubbed. Append only queues (the queue of a buffer never holds more than
// the buffer itself); Commit writes what is queued — many batches in one
// write when they arrive together — or waits for the write in progress
// that takes its entries. The ingest path commits before it answers the
// extension, so what the extension was told is stored is in the kernel's
// hands, which keep it through a SIGKILL, and what it was not told it
// sends again. A background writer writes what nobody committed, and
// syncs the files every Options.Sync for crashes of the machine. A lock
// file keeps a successor from reading before its predecessor has written
// its last records.
package history

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Options configure a Log.
type Options struct {
	// Buffers are the rings to keep; Append to any other name is ignored.
	Buffers []Buffer
	// Write is how soon what nobody commits is written (100 ms when 0);
	// Sync how often written records are synced to disk (500 ms when 0).
	Write, Sync time.Duration
	// Log receives warnings (write failures); nil discards them.
	Log io.Writer
}

// Restored is what Open found of the previous owner's history.
type Restored struct {
	Dir string
	// Entries counts the records handed to load that it accepted.
	Entries int
	// Skipped counts records lost to damage, or that load refused.
	Skipped int
	// Prev is what the previous owner wrote about itself; zero if nothing.
	Prev Owner
	// Seq is the highest sequence number the previous owner is known to
	// have handed out: cursors up to it are covered by what was restored.
	Seq uint64
	// Took is how long reading took.
	Took time.Duration
}

// Log is an open history directory. Append, Commit, Clear and Close are
// safe for concurrent use.
type Log struct {
	dir   string
	lock  *os.File
	rings map[string]*ring
	order []string // buffer names, for a stable write order
	warn  io.Writer
	every time.Duration // how often run writes
	syncs int           // run syncs every syncs writes
	owner Owner

	writing sync.Mutex   // held by whoever writes: Commit's caller or run
	enc     bytes.Buffer // the entry being encoded; under writing

	mu      sync.Mutex
	queues  map[string]*queue
	cleared map[string]bool
	high    uint64 // highest seq appended
	closed  bool
	stopped bool   // a write failed: nothing more is written
	queued  uint64 // Appends so far
	written uint64 // Appends written (or dropped as evicted)

	quit chan struct{}
	done chan struct{}
}

// Open takes the history directory over from its previous owner: it waits
// (until ctx ends) for that owner to release it, hands the newest Entries
// records of each buffer to load (oldest first), and starts the writer.
// load returning an error skips that record. The directory is created 0700, its
// files 0600.
func Open(ctx context.Context, dir string, opts Options, load func(buffer string, seq uint64, data []byte) error) (*Log, Restored, error) {
	start := time.Now()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, Restored{}, fmt.Errorf("create history dir: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, Restored{}, fmt.Errorf("protect history dir: %w", err)
	}
	lock, err := acquire(ctx, filepath.Join(dir, "lock"))
	if err != nil {
		return nil, Restored{}, err
	}
	l := &Log{dir: dir, lock: lock, rings: map[string]*ring{}, warn: opts.Log,
		queues: map[string]*queue{}, cleared: map[string]bool{},
		quit: make(chan struct{}), done: make(chan struct{})}
	if l.warn == nil {
		l.warn = io.Discard
	}
	l.every, l.syncs = cmp.Or(opts.Write, 100*time.Millisecond), 1
	if d := cmp.Or(opts.Sync, 500*time.Millisecond); d > l.every {
		l.syncs = int(d / l.every)
	}
	rest := Restored{Dir: dir}
	rest.Prev, _ = readOwner(dir) // unknown when missing or unreadable
	rest.Seq = rest.Prev.Seq
	for _, b := range opts.Buffers {
		r := newRing(dir, b)
		skipped, err := r.load(func(seq uint64, payload []byte) {
			if load(b.Name, seq, payload) != nil {
				rest.Skipped++
				return
			}
			rest.Entries++
			rest.Seq = max(rest.Seq, seq)
		})
		rest.Skipped += skipped
		if err != nil {
			l.closeFiles()
			return nil, rest, err
		}
		l.rings[b.Name], l.queues[b.Name] = r, &queue{max: b.Entries}
		l.order = append(l.order, b.Name)
	}
	l.owner = Owner{PID: os.Getpid(), Started: start.UTC(), Seq: rest.Seq}
	rest.Took = time.Since(start)
	l.writing.Lock() // run writes the owner file first
	go l.run()
	return l, rest, nil
}

// acquire locks path, waiting while another process holds it.
func acquire(ctx context.Context, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open history lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock history: %w", err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock history: another process still holds %s: %w", path, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Append queues one already-scrubbed entry of a buffer, to be encoded as
// JSON and written by the next Commit, or within Options.Write.
func (l *Log) Append(buffer string, seq uint64, entry any) {
	l.mu.Lock()
	q := l.queues[buffer]
	if l.closed || q == nil {
		l.mu.Unlock()
		return
	}
	q.push(item{seq, entry})
	l.high = max(l.high, seq)
	l.queued++
	l.mu.Unlock()
}

// Clear empties the named buffers on disk, dropping what is queued for
// them: a successor does not bring back what the AI cleared.
func (l *Log) Clear(buffers []string) {
	l.mu.Lock()
	for _, b := range buffers {
		if q := l.queues[b]; q != nil {
			q.items = q.items[:0]
			l.cleared[b] = true
		}
	}
	l.mu.Unlock()
}

// Close writes what is queued, syncs, marks the history as cleanly closed
// and releases the directory for the next owner.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	close(l.quit)
	<-l.done
	l.owner.Clean = true
	err := writeOwner(l.dir, l.owner)
	l.closeFiles()
	return err
}

func (l *Log) closeFiles() {
	for _, r := range l.rings {
		if r.f != nil {
			r.f.Close()
		}
	}
	syscall.Flock(int(l.lock.Fd()), syscall.LOCK_UN)
	l.lock.Close()
}

type item struct {
	seq   uint64
	entry any
}

// queue holds what waits for the writer. Only the newest max entries can
// still be in the buffer, so older ones are dropped: the queue is bounded
// by the buffer it mirrors, however far the writer falls behind.
type queue struct {
	items []item
	max   int
}

func (q *queue) push(it item) {
	q.items = append(q.items, it)
	if len(q.items) >= q.max+max(q.max/4, 16) {
		n := copy(q.items, q.items[len(q.items)-q.max:])
		clear(q.items[n:])
		q.items = q.items[:n]
	}
}

func (q *queue) take() []item {
	its := q.items
	if len(its) > q.max {
		its = its[len(its)-q.max:]
	}
	q.items = nil
	return its
}
