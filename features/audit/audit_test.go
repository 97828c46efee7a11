package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func lines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("torn or invalid line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// Scenarios 10 and 11: created on first write, in a new directory, one
// self-contained JSON object per line.
func TestCreatedWithDirectoryAndWellFormed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep", "er", "audit.jsonl")
	l := Open(path, nil, WithClock(func() time.Time { return time.Date(2026, 1, 24, 15, 32, 0, 0, time.UTC) }))
	defer l.Close()
	l.SetPort(7890)
	l.Write(Event{Event: "capture_override", Setting: "ws_mode", From: "lifecycle", To: "messages", Source: "ai", Agent: "claude-code"})
	l.Write(Event{Event: "capture_reset", Reason: "session_end", Source: "server"})
	got := lines(t, path)
	// Every line names its server: the port and this process.
	want0 := fmt.Sprintf(`{"agent":"claude-code","event":"capture_override","from":"lifecycle","pid":%d,"port":7890,"setting":"ws_mode","source":"ai","to":"messages","ts":"2026-01-24T15:32:00.000Z"}`, os.Getpid())
	if b, _ := json.Marshal(got[0]); string(b) != want0 {
		t.Fatalf("line 1: %s", b)
	}
	if got[1]["agent"] != "" || got[1]["reason"] != "session_end" || got[1]["setting"] != nil {
		t.Fatalf("line 2: %v", got[1])
	}
}

// Scenarios 12 and 13: rotation at the threshold, at most three rotated files.
func TestRotationAtThresholdKeepsThree(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	l := Open(path, nil, WithMaxSize(1000))
	defer l.Close()
	ev := Event{Event: "capture_override", Setting: "log_level", To: strings.Repeat("x", 150), Source: "ai", Agent: "a"}
	one, _ := json.Marshal(Event{TS: "2026-01-24T15:32:00.000Z", Event: ev.Event, Setting: ev.Setting, To: ev.To, Source: ev.Source, Agent: ev.Agent})
	perFile := 1000 / (len(one) + 1)
	for i := range perFile {
		l.Write(ev)
		if i == perFile-1 {
			if _, err := os.Stat(path + ".1"); err == nil {
				t.Fatal("rotated before the threshold")
			}
		}
	}
	l.Write(ev) // passes 1000 bytes: rotates first
	if _, err := os.Stat(path + ".1"); err != nil {
		t.Fatal("no rotation at the threshold")
	}
	if n := len(lines(t, path)); n != 1 {
		t.Fatalf("new file has %d lines", n)
	}
	for range 10 * perFile {
		l.Write(ev)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "audit.jsonl,audit.jsonl.1,audit.jsonl.2,audit.jsonl.3,audit.jsonl.lock" {
		t.Fatalf("files: %v", names)
	}
	for _, f := range []string{path, path + ".1", path + ".2", path + ".3"} {
		if st, _ := os.Stat(f); st.Size() > 1000 {
			t.Fatalf("%s is %d bytes", f, st.Size())
		}
	}
}

// Scenario 14: a log that cannot be opened warns once and drops events.
func TestUnopenableLogWarnsOnce(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	var warn bytes.Buffer
	l := Open(filepath.Join(blocker, "audit.jsonl"), &warn) // a file where a directory must be
	for range 3 {
		if err := l.Write(Event{Event: "x", Source: "ai"}); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Count(warn.String(), "warning") != 1 {
		t.Fatalf("warnings: %q", warn.String())
	}
}

func TestConcurrentWritersInOneProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	// Small enough to rotate under both writers, large enough that the
	// three kept files hold everything.
	a, b := Open(path, nil, WithMaxSize(40_000)), Open(path, nil, WithMaxSize(40_000))
	var wg sync.WaitGroup
	for w, l := range []*Log{a, b} {
		wg.Go(func() {
			for i := range 300 {
				l.Write(Event{Event: "e", Setting: fmt.Sprint(w, "-", i), To: strings.Repeat("y", 100), Source: "ai"})
			}
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, f := range []string{path, path + ".1", path + ".2", path + ".3"} {
		if _, err := os.Stat(f); err == nil {
			for _, m := range lines(t, f) {
				seen[m["setting"].(string)] = true
			}
		}
	}
	if _, err := os.Stat(path + ".1"); len(seen) != 600 || err != nil {
		t.Fatalf("%d distinct lines of 600 (rotated: %v)", len(seen), err == nil)
	}
}

// TestHelperWriter is run as a child process by TestTwoProcessesNeverTear.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv("AUDIT_HELPER_PATH")
	if path == "" {
		t.Skip("child process only")
	}
	size, _ := strconv.ParseInt(os.Getenv("AUDIT_HELPER_MAX"), 10, 64)
	l := Open(path, nil, WithMaxSize(size))
	for i := range 2000 {
		l.Write(Event{Event: "e", Setting: os.Getenv("AUDIT_HELPER_ID") + "-" + fmt.Sprint(i), To: strings.Repeat("z", 300), Source: "ai"})
	}
}

// Two gasoline processes appending to one file never tear or lose a line,
// also while they rotate it under each other.
func TestTwoProcessesNeverTear(t *testing.T) {
	for _, maxSize := range []int64{DefaultMaxSize, 450_000} {
		t.Run(fmt.Sprint(maxSize), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			var cmds []*exec.Cmd
			for _, id := range []string{"p1", "p2"} {
				cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$")
				cmd.Env = append(os.Environ(), "AUDIT_HELPER_PATH="+path, "AUDIT_HELPER_ID="+id, fmt.Sprint("AUDIT_HELPER_MAX=", maxSize))
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds = append(cmds, cmd)
			}
			for _, c := range cmds {
				if err := c.Wait(); err != nil {
					t.Fatal(err)
				}
			}
			seen := map[string]bool{}
			for _, f := range []string{path, path + ".1", path + ".2", path + ".3"} {
				if _, err := os.Stat(f); err != nil {
					continue
				}
				for _, m := range lines(t, f) {
					seen[m["setting"].(string)] = true
				}
			}
			if len(seen) != 4000 {
				t.Fatalf("%d distinct lines, want 4000", len(seen))
			}
			if _, err := os.Stat(path + ".2"); maxSize < DefaultMaxSize && err != nil {
				t.Fatal("the small log never rotated twice: the test did not exercise rotation")
			}
		})
	}
}
