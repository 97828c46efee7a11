package tui

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/audit"
)

// appendEvents writes events from..to-1 with the real audit writer.
func appendEvents(t *testing.T, path string, from, to int) {
	t.Helper()
	l := audit.Open(path, io.Discard)
	defer l.Close()
	for i := from; i < to; i++ {
		if err := l.Write(audit.Event{Event: "capture_override", Setting: "ws_mode", From: "lifecycle", To: "messages",
			Source: "ai", Agent: fmt.Sprintf("writer-%03d", i)}); err != nil {
			t.Fatal(err)
		}
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
	d.press("6")
	return d
}

// The audit pane shows the log's last lines, then what is appended,
// rendered readably. (How the tail follows rotations and other writers is
// tested in features/audit.)
func TestAuditPaneFollowsTheLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "audit.jsonl")
	appendEvents(t, path, 0, 3)
	d := auditDashboard(t, path)
	d.await("the existing lines", func() bool { return slices.Equal(auditAgents(d.m), writers(0, 3)) })

	appendEvents(t, path, 3, 6)
	d.await("the appended lines, in order", func() bool { return slices.Equal(auditAgents(d.m), writers(0, 6)) })
	if !strings.Contains(d.screen(), "AI ▶ writer-005") || !strings.Contains(d.screen(), "set ws_mode: lifecycle → messages") {
		t.Fatalf("audit lines are not rendered readably:\n%s", d.screen())
	}
	if d.m.auditPath != path {
		t.Fatalf("the pane names %q, want %q", d.m.auditPath, path)
	}
}
