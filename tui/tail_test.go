package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/audit"
)

// helperEnv makes the test binary a writer of the audit log, so the log is
// appended to by another process, as Gasoline servers do.
const helperEnv = "GASOLINE_TUI_TEST_HELPER"

// helperMain is "append PATH FROM TO MAXSIZE": write events FROM..TO-1 with
// the real audit writer, rotating past MAXSIZE bytes.
func helperMain(mode string) int {
	f := strings.Fields(mode)
	if len(f) != 5 || f[0] != "append" {
		fmt.Fprintln(os.Stderr, "bad helper mode", mode)
		return 2
	}
	from, _ := strconv.Atoi(f[2])
	to, _ := strconv.Atoi(f[3])
	size, _ := strconv.ParseInt(f[4], 10, 64)
	l := audit.Open(f[1], os.Stderr, audit.WithMaxSize(size))
	defer l.Close()
	for i := from; i < to; i++ {
		if err := l.Write(audit.Event{Event: "capture_override", Setting: "ws_mode", From: "lifecycle", To: "messages",
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
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=append %s %d %d %d", helperEnv, path, from, to, maxSize))
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

// auditAgents lists the agents of the audit pane's rows, in order.
func auditAgents(m *Model) []string {
	var out []string
	for _, r := range rowTexts(m.audit) {
		if i := strings.Index(r, "writer-"); i >= 0 {
			out = append(out, r[i:i+len("writer-000")])
		}
	}
	return out
}

// auditDashboard is a model whose only outside source is the audit tail.
func auditDashboard(t *testing.T, path string) *driver {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := newFeed(BatchEvery, ctx.Done())
	m := New(Config{})
	m.feed = f
	var fol follower
	fol.follow(path, f.Push)
	t.Cleanup(func() { cancel(); fol.stop() })
	d := newDriver(t, m)
	d.press("5")
	return d
}

// The audit pane starts with the file's last lines, then follows what
// another process appends, across the writer's own size rotations.
func TestAuditPaneFollowsAnotherWriterAcrossRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "audit.jsonl")
	appendFromAnotherProcess(t, path, 0, 3, 1<<20)
	d := auditDashboard(t, path)
	d.await("the existing lines", func() bool { return slices.Equal(auditAgents(d.m), writers(0, 3)) })

	// Each line is ~150 bytes: 40 lines at 2,500 bytes a file rotate twice,
	// which the writer's three kept files hold whatever the tail's pace.
	appendFromAnotherProcess(t, path, 3, 40, 2500)
	if _, err := os.Stat(path + ".2"); err != nil {
		t.Fatalf("the writer did not rotate twice: %v", err)
	}
	d.await("every line, in order, across two rotations", func() bool {
		return slices.Equal(auditAgents(d.m), writers(0, 40))
	})
	if !strings.Contains(d.screen(), "AI ▶ writer-039") || !strings.Contains(d.screen(), "set ws_mode: lifecycle → messages") {
		t.Fatalf("audit lines are not rendered readably:\n%s", d.screen())
	}
}

// Rotation by hand: the file is renamed to .1 and re-created, and the
// pane goes on with the new file; a line written in two parts shows once,
// whole.
func TestAuditPaneFollowsRenameAndRecreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	d := auditDashboard(t, path) // the file does not exist yet
	appendFromAnotherProcess(t, path, 0, 2, 1<<20)
	d.await("lines of a file created after the tail started", func() bool {
		return slices.Equal(auditAgents(d.m), writers(0, 2))
	})

	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	appendFromAnotherProcess(t, path, 2, 5, 1<<20)
	d.await("lines of the re-created file", func() bool { return slices.Equal(auditAgents(d.m), writers(0, 5)) })

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(`{"ts":"2026-01-24T15:32:00.000Z","event":"capture_allowed",`)
	f.WriteString(`"setting":"ws_mode","source":"human","agent":"human"}` + "\n")
	d.await("the line written in two parts", func() bool {
		rows := rowTexts(d.m.audit)
		return len(rows) == 6 && strings.Contains(rows[5], "you") && strings.Contains(rows[5], "allowed the AI to set ws_mode again")
	})
}
