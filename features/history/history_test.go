package history

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type rec struct {
	Buffer string
	Seq    uint64
	Msg    string
}

type msg struct {
	Msg string `json:"msg"`
	N   int    `json:"n,omitempty"`
}

var testBuffers = []Buffer{{Name: "logs", Entries: 10, Bytes: 1 << 20}, {Name: "errors", Entries: 4, Bytes: 1 << 20}}

// open opens dir and returns what it restored, decoded.
func open(t testing.TB, dir string, bufs []Buffer) (*Log, Restored, []rec) {
	t.Helper()
	var got []rec
	l, r, err := Open(context.Background(), dir, Options{Buffers: bufs}, func(b string, seq uint64, data []byte) error {
		var m msg
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		got = append(got, rec{b, seq, m.Msg})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, r, got
}

func appendN(l *Log, buffer string, from, to int) {
	for i := from; i <= to; i++ {
		l.Append(buffer, uint64(i), msg{Msg: fmt.Sprintf("%s-%d", buffer, i)})
	}
}

func seqs(rs []rec, buffer string) []uint64 {
	var out []uint64
	for _, r := range rs {
		if r.Buffer == buffer {
			out = append(out, r.Seq)
		}
	}
	return out
}

func TestReopenRestoresWhatWasAppended(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "h")
	l, r, got := open(t, dir, testBuffers)
	if r.Entries != 0 || len(got) != 0 || r.Prev.PID != 0 {
		t.Fatalf("a new directory restored %+v %v", r, got)
	}
	appendN(l, "logs", 1, 3)
	l.Append("errors", 3, msg{Msg: "errors-3"})
	l.Append("unknown", 4, msg{Msg: "dropped"})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	_, r, got = open(t, dir, testBuffers)
	want := []rec{{"logs", 1, "logs-1"}, {"logs", 2, "logs-2"}, {"logs", 3, "logs-3"}, {"errors", 3, "errors-3"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("restored %v, want %v", got, want)
	}
	if r.Entries != 4 || r.Seq != 3 || !r.Prev.Clean || r.Prev.PID != os.Getpid() || r.Skipped != 0 {
		t.Fatalf("restored %+v", r)
	}
}

// Segments rotate at four times the buffer's capacity, so the two hold
// at least the newest capacity entries and at most eight times that; only
// the newest capacity entries are handed back, the buffer's content.
func TestRotatesAtCapacity(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir, testBuffers)
	for i := 1; i <= 95; i++ {
		appendN(l, "logs", i, i)
		l.Commit() // one record per write: no entry is dropped as evicted
	}
	l.Close()
	_, r, got := open(t, dir, testBuffers)
	if s := seqs(got, "logs"); fmt.Sprint(s) != "[86 87 88 89 90 91 92 93 94 95]" || r.Entries != 10 {
		t.Fatalf("restored logs %v, want 86..95", s)
	}
	// 1..40, 41..80 rotated twice: the previous segment holds 41..80.
	for f, want := range map[string]int{"logs.prev.seg": 40, "logs.seg": 15} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if n := strings.Count(string(b), `"msg"`); n != want {
			t.Errorf("%s holds %d records, want %d", f, n, want)
		}
	}
}

// Past its byte cap a buffer keeps fewer entries, and the files stay
// under the cap.
func TestRotatesAtByteCap(t *testing.T) {
	dir := t.TempDir()
	bufs := []Buffer{{Name: "logs", Entries: 1000, Bytes: 4 << 10}}
	l, _, _ := open(t, dir, bufs)
	big := strings.Repeat("x", 500)
	for i := 1; i <= 100; i++ {
		l.Append("logs", uint64(i), msg{Msg: big, N: i})
	}
	l.Close()
	var total int64
	for _, f := range []string{"logs.seg", "logs.prev.seg"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		total += st.Size()
	}
	if total > 4<<10 {
		t.Fatalf("segments hold %d bytes, cap 4096", total)
	}
	_, _, got := open(t, dir, bufs)
	s := seqs(got, "logs")
	if len(s) < 4 || s[len(s)-1] != 100 {
		t.Fatalf("restored %v, want the newest entries up to 100", s)
	}
}

// A SIGKILL mid-write leaves half a record: it is skipped, the rest is
// restored, and records appended after it can be read again.
func TestTornTailIsCutAndAppendGoesOn(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir, testBuffers)
	appendN(l, "logs", 1, 5)
	l.Close()
	seg := filepath.Join(dir, "logs.seg")
	b, _ := os.ReadFile(seg)
	whole := len(b)
	b = appendRecord(b, 6, []byte(`{"msg":"logs-6"}`))
	if err := os.WriteFile(seg, b[:len(b)-5], 0o600); err != nil { // torn mid-payload
		t.Fatal(err)
	}
	l, r, got := open(t, dir, testBuffers)
	if s := seqs(got, "logs"); len(s) != 5 || s[4] != 5 {
		t.Fatalf("restored %v, want 1..5", s)
	}
	if r.Prev.Clean != true || r.Entries != 5 {
		t.Fatalf("restored %+v", r)
	}
	if st, _ := os.Stat(seg); st.Size() != int64(whole) {
		t.Fatalf("torn tail not cut: %d bytes, want %d", st.Size(), whole)
	}
	appendN(l, "logs", 7, 8)
	l.Close()
	_, _, got = open(t, dir, testBuffers)
	if s := seqs(got, "logs"); fmt.Sprint(s) != "[1 2 3 4 5 7 8]" {
		t.Fatalf("after the cut tail, restored %v", s)
	}
}

// A damaged record in the middle is skipped; those around it are kept.
func TestDamagedRecordIsSkipped(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir, testBuffers)
	appendN(l, "logs", 1, 3)
	l.Close()
	seg := filepath.Join(dir, "logs.seg")
	b, _ := os.ReadFile(seg)
	i := strings.Index(string(b), "logs-2")
	b[i] = 'X'
	os.WriteFile(seg, b, 0o600)
	_, r, got := open(t, dir, testBuffers)
	if s := seqs(got, "logs"); fmt.Sprint(s) != "[1 3]" || r.Skipped != 1 {
		t.Fatalf("restored %v, skipped %d; want [1 3], 1", s, r.Skipped)
	}
}

// A SIGKILL leaves no clean mark: the successor can tell.
func TestUncleanEndIsReported(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir, testBuffers)
	appendN(l, "logs", 1, 2)
	l.Commit()
	// What a SIGKILL leaves: the records written, the lock released by the
	// kernel, no clean mark.
	l.closeFiles()
	_, r, got := open(t, dir, testBuffers)
	if len(got) != 2 || r.Prev.Clean || r.Prev.PID != os.Getpid() {
		t.Fatalf("restored %v %+v", got, r)
	}
}

// Once Commit returns, what was appended before is in the file: a SIGKILL
// then cannot take it.
func TestCommitReturnsOnceWritten(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir, testBuffers)
	for i := 1; i <= 50; i++ {
		l.Append("logs", uint64(i), msg{Msg: fmt.Sprintf("logs-%d", i)})
		l.Commit()
		b, err := os.ReadFile(filepath.Join(dir, "logs.seg"))
		if err != nil || !strings.Contains(string(b), fmt.Sprintf(`"logs-%d"`, i)) {
			t.Fatalf("after Commit, logs-%d is not in the file (%v)", i, err)
		}
	}
	l.Close()
	l.Append("logs", 51, msg{Msg: "late"})
	l.Commit() // a closed log does not keep anyone waiting
}

func TestClearedBufferIsNotRestored(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir, testBuffers)
	appendN(l, "logs", 1, 12)
	appendN(l, "errors", 13, 14)
	l.Clear([]string{"logs"})
	appendN(l, "logs", 15, 15)
	l.Close()
	_, r, got := open(t, dir, testBuffers)
	if s := seqs(got, "logs"); fmt.Sprint(s) != "[15]" {
		t.Fatalf("restored logs %v, want only what came after the clear", s)
	}
	if s := seqs(got, "errors"); len(s) != 2 || r.Seq != 15 {
		t.Fatalf("errors %v, seq %d", s, r.Seq)
	}
}

func TestFilesAreTheUsersOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "h")
	os.Mkdir(dir, 0o755)
	l, _, _ := open(t, dir, testBuffers)
	appendN(l, "logs", 1, 1)
	l.Close()
	st, _ := os.Stat(dir)
	if st.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v, want 0700", st.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		info, _ := e.Info()
		if info.Mode().Perm() != 0o600 {
			t.Fatalf("%s mode %v, want 0600", e.Name(), info.Mode().Perm())
		}
	}
	if len(ents) < 4 {
		t.Fatalf("only %d files", len(ents))
	}
}

// A successor waits for its predecessor to write its last records and
// release the directory, and gives up when its context ends first.
func TestSuccessorWaitsForTheLock(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir, testBuffers)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := Open(ctx, dir, Options{Buffers: testBuffers}, func(string, uint64, []byte) error { return nil }); err == nil {
		t.Fatal("a second owner opened a held directory")
	}
	appendN(l, "logs", 1, 3)
	done := make(chan []rec)
	go func() {
		_, _, got := open(t, dir, testBuffers)
		done <- got
	}()
	l.Close()
	if got := <-done; len(seqs(got, "logs")) != 3 {
		t.Fatalf("the successor restored %v, want the 3 its predecessor wrote before closing", got)
	}
}

// The queue never holds more than its buffer could: older entries are
// gone from the buffer anyway.
func TestQueueIsBounded(t *testing.T) {
	q := queue{max: 100}
	for i := range 10_000 {
		q.push(item{seq: uint64(i)})
		if len(q.items) > 125 {
			t.Fatalf("queue holds %d", len(q.items))
		}
	}
	its := q.take()
	if len(its) != 100 || its[0].seq != 9900 || its[99].seq != 9999 {
		t.Fatalf("took %d, from %d", len(its), its[0].seq)
	}
}

func TestRefusedRecordsAreCounted(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir, testBuffers)
	appendN(l, "logs", 1, 3)
	l.Close()
	l, r, err := Open(context.Background(), dir, Options{Buffers: testBuffers}, func(_ string, seq uint64, _ []byte) error {
		if seq == 2 {
			return fmt.Errorf("no")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if r.Entries != 2 || r.Skipped != 1 {
		t.Fatalf("restored %+v", r)
	}
}

// The loader never reads more than a buffer's byte cap, whatever is on
// disk: a segment grown past it (not by this writer) is read up to it.
func TestLoaderReadsAtMostTheCap(t *testing.T) {
	dir := t.TempDir()
	bufs := []Buffer{{Name: "logs", Entries: 1000, Bytes: 8 << 10}}
	var b []byte
	for i := 1; i <= 200; i++ { // ~8 KiB of 40-byte records, twice the segment's 4 KiB
		b = appendRecord(b, uint64(i), []byte(fmt.Sprintf(`{"msg":"logs-%03d","n":%d}`, i, i)))
	}
	os.WriteFile(filepath.Join(dir, "logs.seg"), b, 0o600)
	_, r, got := open(t, dir, bufs)
	var read int64
	for _, g := range got {
		read += int64(headerSize + len(fmt.Sprintf(`{"msg":"%s","n":%d}`, g.Msg, g.Seq)))
	}
	if r.Entries == 0 || read > 4<<10 || r.Entries >= 200 {
		t.Fatalf("restored %d records, %d bytes, from a segment capped at 4096", r.Entries, read)
	}
}
