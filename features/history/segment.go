package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Buffer is one ring on disk, named after the in-memory buffer it mirrors.
type Buffer struct {
	Name string
	// Entries is the in-memory buffer's capacity: the newest Entries are
	// restored. A segment rotates at segEntries of them (or at half of
	// Bytes), so the two always hold at least the newest Entries unless
	// Bytes cuts them first; rotating at more than Entries keeps rotations
	// (a rename and a create) rare under a flood.
	Entries int
	// Bytes bounds both segments together: each rotates at half of it.
	Bytes int64
}

func (b Buffer) segBytes() int64 { return b.Bytes / 2 }

func (b Buffer) segEntries() int { return 4 * b.Entries }

// ring is the two segment files of one buffer: the current one, appended
// to, and the previous one, read at start only. Rotation renames current
// over previous, which drops the oldest half in one atomic step.
type ring struct {
	buf      Buffer
	cur, old string   // paths
	f        *os.File // current segment, open for appending
	records  int      // records in the current segment
	size     int64    // bytes in the current segment
	pending  []byte   // encoded records not yet written
	dirty    bool     // written since the last sync
}

func newRing(dir string, b Buffer) *ring {
	return &ring{buf: b, cur: filepath.Join(dir, b.Name+".seg"), old: filepath.Join(dir, b.Name+".prev.seg")}
}

// load hands the newest Entries intact records, oldest first, to fn (a
// first pass counts them, so older ones are not decoded for nothing), then
// opens the current segment for appending with any torn tail cut off. Each
// pass reads at most Bytes.
func (r *ring) load(fn func(seq uint64, payload []byte)) (skipped int, err error) {
	none := func(uint64, []byte) {}
	old, err := readSegment(r.old, r.buf.segBytes(), 0, none)
	if err != nil {
		return 0, err
	}
	cur, err := readSegment(r.cur, r.buf.segBytes(), 0, none)
	if err != nil {
		return 0, err
	}
	fromCur := min(cur.records, r.buf.Entries)
	fromOld := min(old.records, r.buf.Entries-fromCur)
	if _, err := readSegment(r.old, r.buf.segBytes(), old.records-fromOld, fn); err != nil {
		return 0, err
	}
	if _, err := readSegment(r.cur, r.buf.segBytes(), cur.records-fromCur, fn); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(r.cur, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return 0, fmt.Errorf("open history segment: %w", err)
	}
	// Cut what follows the last intact record, so new records are not
	// appended behind a torn one, where they could not be read.
	if err := f.Truncate(cur.end); err != nil {
		f.Close()
		return 0, fmt.Errorf("cut torn history tail: %w", err)
	}
	if _, err := f.Seek(cur.end, 0); err != nil {
		f.Close()
		return 0, fmt.Errorf("seek history segment: %w", err)
	}
	r.f, r.records, r.size = f, cur.records, cur.end
	return old.skipped + cur.skipped, nil
}

func readSegment(path string, limit int64, skip int, fn func(uint64, []byte)) (scan, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return scan{}, nil
	}
	if err != nil {
		return scan{}, fmt.Errorf("open history segment: %w", err)
	}
	defer f.Close()
	sc, err := decode(f, limit, skip, fn)
	if err != nil {
		return sc, fmt.Errorf("read history segment %s: %w", path, err)
	}
	return sc, nil
}

// add queues one record, rotating first when it would not fit; a payload
// larger than a whole segment is dropped.
func (r *ring) add(seq uint64, payload []byte) error {
	n := int64(headerSize + len(payload))
	if n > r.buf.segBytes() || len(payload) > MaxRecord {
		return nil
	}
	if r.records >= r.buf.segEntries() || r.size+n > r.buf.segBytes() {
		if err := r.rotate(); err != nil {
			return err
		}
	}
	r.pending = appendRecord(r.pending, seq, payload)
	r.records++
	r.size += n
	return nil
}

// flush writes the queued records in one call.
func (r *ring) flush() error {
	if len(r.pending) == 0 {
		return nil
	}
	_, err := r.f.Write(r.pending)
	r.pending = r.pending[:0]
	r.dirty = true
	if err != nil {
		return fmt.Errorf("write history: %w", err)
	}
	return nil
}

func (r *ring) rotate() error {
	if err := r.flush(); err != nil {
		return err
	}
	if err := r.f.Close(); err != nil {
		return fmt.Errorf("close history segment: %w", err)
	}
	if err := os.Rename(r.cur, r.old); err != nil {
		return fmt.Errorf("rotate history: %w", err)
	}
	return r.create()
}

// reset empties the ring: what the AI cleared is not restored.
func (r *ring) reset() error {
	r.pending = r.pending[:0]
	if err := r.f.Close(); err != nil {
		return fmt.Errorf("close history segment: %w", err)
	}
	if err := os.Remove(r.old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear history: %w", err)
	}
	return r.create()
}

func (r *ring) create() error {
	f, err := os.OpenFile(r.cur, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create history segment: %w", err)
	}
	r.f, r.records, r.size = f, 0, 0
	return nil
}

func (r *ring) sync() error {
	if !r.dirty {
		return nil
	}
	r.dirty = false
	if err := r.f.Sync(); err != nil {
		return fmt.Errorf("sync history: %w", err)
	}
	return nil
}
