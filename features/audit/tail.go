package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
)

// Line is one line of the audit log, parsed when it is JSON.
type Line struct {
	Raw   string
	Event Event
	// Parsed is false for a line that is not an audit event.
	Parsed bool
}

// ParseLine reads one JSONL line of the audit log.
func ParseLine(raw string) Line {
	l := Line{Raw: raw}
	l.Parsed = json.Unmarshal([]byte(raw), &l.Event) == nil && l.Event.Event != ""
	return l
}

// How much of an existing log a tail starts with.
const (
	tailBacklogLines = 200
	tailBacklogBytes = 256 << 10
)

// Tail follows the audit log at path until ctx ends, passing deliver each
// batch of new lines, oldest first, starting with the file's last lines,
// preceded by the human's kept lines (HumanPath) that are older than those.
// Lines are whole: one written in parts comes once complete. It follows
// the writer's rotations, losing no line written before one. It watches the file's directory, not the file: the writer
// rotates by renaming the file away and creating a new one, which a watch
// on the file itself would not survive.
func Tail(ctx context.Context, path string, deliver func([]Line)) error {
	path = filepath.Clean(path)
	// The server creates the directory on its first write; make it now so
	// the watch can start before that.
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("tail audit log: %w", err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("tail audit log: %w", err)
	}
	defer w.Close()
	if err := w.Add(filepath.Dir(path)); err != nil {
		return fmt.Errorf("tail audit log: watch %s: %w", filepath.Dir(path), err)
	}
	t := &tailer{path: path}
	defer t.close()
	// Watch first, then read: a line written in between is read by the
	// first event rather than lost.
	// The human's file first: each of its lines was written to the log
	// before it, so a line read there and not in the log's backlog is
	// older than that backlog.
	kept := lastLines(HumanPath(path))
	t.emit(deliver, withKept(kept, t.poll(true)))
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if filepath.Clean(ev.Name) == path {
				t.emit(deliver, t.poll(false))
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			// An overflowed queue lost events, not data: read what is there.
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				t.emit(deliver, t.poll(false))
			}
		}
	}
}

// tailer reads what was appended to a file, across rotations.
type tailer struct {
	path string
	f    *os.File // the file being read; may have been renamed away
	part []byte   // an unfinished last line
}

func (t *tailer) emit(deliver func([]Line), lines []string) {
	if len(lines) == 0 {
		return
	}
	out := make([]Line, len(lines))
	for i, l := range lines {
		out[i] = ParseLine(l)
	}
	deliver(out)
}

// poll returns the complete lines appended since the last poll. It first
// finishes the file it has open (lines written just before a rotation),
// then any rotated file it never saw (several rotations between two polls),
// then moves to whatever file now has the name.
func (t *tailer) poll(first bool) []string {
	var lines []string
	if t.f != nil {
		lines = t.read(lines)
	}
	// Open, then stat what was opened: a stat of the name followed by an
	// open could see one file and open the next, skipping one rotated
	// between the two.
	f, err := os.Open(t.path)
	if err != nil {
		// Renamed away or removed: keep the old file open, so the next
		// poll knows where the rotation started.
		return lines
	}
	cur, err := f.Stat()
	if err != nil {
		f.Close()
		return lines
	}
	if t.f != nil {
		have, err := t.f.Stat()
		if err == nil && os.SameFile(have, cur) {
			f.Close()
			if off, _ := t.f.Seek(0, io.SeekCurrent); cur.Size() < off {
				t.f.Seek(0, io.SeekStart) // truncated in place
				t.part = nil
				lines = t.read(lines)
			}
			return lines
		}
		// The writer may have appended after our read and before rotating:
		// drain the old file once more, now that it can grow no further.
		lines = t.read(lines)
		t.close()
		if err == nil {
			lines = t.readRotated(have, cur, lines)
		}
	}
	t.f = f
	if first {
		return append(lines, t.backlog(cur.Size())...)
	}
	return t.read(lines)
}

// maxRotated is how many rotated files (path.1, path.2, …) the tailer looks
// through; the writer keeps three.
const maxRotated = 9

// readRotated reads whole the rotated files newer than old, the file the
// tailer had open: if old is now path.3, then path.2 and path.1 came after
// it. A file that is already cur (the live one) is left for the caller.
func (t *tailer) readRotated(old, cur fs.FileInfo, lines []string) []string {
	found := 0
	for k := 1; k <= maxRotated && found == 0; k++ {
		st, err := os.Stat(fmt.Sprintf("%s.%d", t.path, k))
		if err != nil {
			break
		}
		if os.SameFile(st, old) {
			found = k
		}
	}
	for k := found - 1; k >= 1; k-- {
		f, err := os.Open(fmt.Sprintf("%s.%d", t.path, k))
		if err != nil {
			continue
		}
		if st, err := f.Stat(); err == nil && !os.SameFile(st, cur) {
			t.f = f
			lines = t.read(lines)
			t.part = nil // a torn last line of a rotated file stays torn
		}
		f.Close()
		t.f = nil
	}
	return lines
}

// lastLines is the backlog of the file at path, if there is one.
func lastLines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	t := &tailer{f: f}
	defer t.close()
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	return t.backlog(st.Size())
}

// withKept puts before lines the kept lines that are not among them.
func withKept(kept, lines []string) []string {
	in := make(map[string]bool, len(lines))
	for _, l := range lines {
		in[l] = true
	}
	var out []string
	for _, k := range kept {
		if !in[k] {
			out = append(out, k)
		}
	}
	return append(out, lines...)
}

// backlog returns the last lines of the file it just opened.
func (t *tailer) backlog(size int64) []string {
	start := max(0, size-tailBacklogBytes)
	t.f.Seek(start, io.SeekStart)
	lines := t.read(nil)
	if start > 0 && len(lines) > 0 {
		lines = lines[1:] // began mid-line
	}
	if n := len(lines) - tailBacklogLines; n > 0 {
		lines = lines[n:]
	}
	return lines
}

// read appends the complete lines from the read position to EOF.
func (t *tailer) read(lines []string) []string {
	b, _ := io.ReadAll(t.f)
	if len(b) == 0 {
		return lines
	}
	b = append(t.part, b...)
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		if l := bytes.TrimRight(b[:i], "\r"); len(l) > 0 {
			lines = append(lines, string(l))
		}
		b = b[i+1:]
	}
	t.part = append([]byte(nil), b...)
	return lines
}

func (t *tailer) close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
	t.part = nil
}
