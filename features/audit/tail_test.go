package audit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// tailHelperEnv makes the test binary a writer of the audit log, so the
// tailed file is appended to by another process, as Gasoline servers do.
const tailHelperEnv = "GASOLINE_AUDIT_TAIL_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(tailHelperEnv); mode != "" {
		os.Exit(appendMain(mode))
	}
	os.Exit(m.Run())
}

// appendMain is "append PATH FROM TO MAXSIZE": write events FROM..TO-1 with
// the real writer, rotating past MAXSIZE bytes.
func appendMain(mode string) int {
	f := strings.Fields(mode)
	if len(f) != 5 || f[0] != "append" {
		fmt.Fprintln(os.Stderr, "bad helper mode", mode)
		return 2
	}
	from, _ := strconv.Atoi(f[2])
	to, _ := strconv.Atoi(f[3])
	size, _ := strconv.ParseInt(f[4], 10, 64)
	l := Open(f[1], os.Stderr, WithMaxSize(size))
	defer l.Close()
	for i := from; i < to; i++ {
		if err := l.Write(Event{Event: "capture_override", Setting: "ws_mode", From: "lifecycle", To: "messages",
			Source: "ai", Agent: fmt.Sprintf("writer-%03d", i)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// appendFromAnotherProcess runs the helper and waits for it to finish.
func appendFromAnotherProcess(t *testing.T, path string, from, to int, maxSize int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=append %s %d %d %d", tailHelperEnv, path, from, to, maxSize))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("writer process: %v\n%s", err, out)
	}
}

func writers(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("writer-%03d", i))
	}
	return out
}

// tailed collects what a Tail delivers.
type tailed struct {
	mu    sync.Mutex
	lines []Line
}

// tail runs Tail on path until the test ends.
func tail(t *testing.T, path string) *tailed {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	got := &tailed{}
	done := make(chan error, 1)
	go func() {
		done <- Tail(ctx, path, func(ls []Line) {
			got.mu.Lock()
			defer got.mu.Unlock()
			got.lines = append(got.lines, ls...)
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("tail: %v", err)
		}
	})
	return got
}

func (g *tailed) snapshot() []Line {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.lines)
}

// agents lists the agents of the delivered lines, in order.
func (g *tailed) agents() []string {
	var out []string
	for _, l := range g.snapshot() {
		out = append(out, l.Event.Agent)
	}
	return out
}

// await waits until cond holds; 10 s only turns a hang into a failure on a
// loaded machine.
func (g *tailed) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !wait.Until(10*time.Second, cond) {
		t.Fatalf("timed out waiting for %s; delivered: %v", what, g.agents())
	}
}

// A tail starts with the file's last lines, then follows what another
// process appends, across the writer's own size rotations.
func TestTailFollowsAnotherWriterAcrossRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "audit.jsonl")
	appendFromAnotherProcess(t, path, 0, 3, 1<<20)
	got := tail(t, path)
	got.await(t, "the existing lines", func() bool { return slices.Equal(got.agents(), writers(0, 3)) })

	// Each line is ~150 bytes: 40 lines at 2,500 bytes a file rotate twice,
	// which the writer's three kept files hold whatever the tail's pace.
	appendFromAnotherProcess(t, path, 3, 40, 2500)
	if _, err := os.Stat(path + ".2"); err != nil {
		t.Fatalf("the writer did not rotate twice: %v", err)
	}
	got.await(t, "every line, in order, across two rotations", func() bool {
		return slices.Equal(got.agents(), writers(0, 40))
	})
	for _, l := range got.snapshot() {
		if !l.Parsed || l.Event.Event != "capture_override" || l.Event.To != "messages" {
			t.Fatalf("line not parsed into an event: %+v", l)
		}
	}
}

// Rotation by hand: the file is renamed to .1 and re-created, and the tail
// goes on with the new file; a line written in two parts comes once, whole.
func TestTailFollowsRenameAndRecreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	got := tail(t, path) // the file does not exist yet
	appendFromAnotherProcess(t, path, 0, 2, 1<<20)
	got.await(t, "lines of a file created after the tail started", func() bool {
		return slices.Equal(got.agents(), writers(0, 2))
	})

	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	appendFromAnotherProcess(t, path, 2, 5, 1<<20)
	got.await(t, "lines of the re-created file", func() bool { return slices.Equal(got.agents(), writers(0, 5)) })

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(`{"ts":"2026-01-24T15:32:00.000Z","event":"capture_allowed",`)
	f.WriteString(`"setting":"ws_mode","source":"human","agent":"human"}` + "\n")
	f.WriteString("not json\n")
	got.await(t, "the line written in two parts, then a plain one", func() bool { return len(got.snapshot()) == 7 })
	lines := got.snapshot()
	if l := lines[5]; !l.Parsed || l.Event.Event != "capture_allowed" || l.Event.Setting != "ws_mode" {
		t.Fatalf("the line written in two parts: %+v", l)
	}
	if l := lines[6]; l.Parsed || l.Raw != "not json" {
		t.Fatalf("a line that is not an event: %+v", l)
	}
}

// A log bigger than the backlog starts the tail at its last lines only.
func TestTailStartsWithTheLastLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	appendFromAnotherProcess(t, path, 0, tailBacklogLines+50, 1<<20)
	got := tail(t, path)
	want := writers(50, tailBacklogLines+50)
	got.await(t, "the last lines", func() bool { return slices.Equal(got.agents(), want) })
}
