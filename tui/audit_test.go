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
	for _, r := range rowTexts(m.panes.audit.streamPane) {
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
	if d.m.panes.audit.path != path {
		t.Fatalf("the pane names %q, want %q", d.m.panes.audit.path, path)
	}
}

// The human's lines stay in the Audit pane under a flood of the AI's
// lines that would scroll them away: the pane keeps its last PaneLines
// rows and, before them, the human's.
func TestAuditPaneKeepsTheHumansLinesUnderAFlood(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "audit.jsonl")
	d := auditDashboard(t, path)
	l := audit.Open(path, io.Discard)
	l.Write(audit.Event{Event: "pilot_blocked", Source: "human", Agent: "human"})
	l.Close()
	d.await("the human's line", func() bool { return len(auditAgents(d.m)) == 0 && d.m.panes.audit.rows.len() == 1 })
	flood := PaneLines + PaneLines/2
	appendEvents(t, path, 0, flood)
	d.await("the flood", func() bool {
		r := rowTexts(d.m.panes.audit.streamPane)
		return len(r) > 0 && strings.Contains(r[len(r)-1], fmt.Sprintf("writer-%03d ", flood-1))
	})
	var shown []string
	d.m.panes.audit.pinned.each(func(r row) { shown = append(shown, r.text) })
	d.m.panes.audit.rows.each(func(r row) { shown = append(shown, r.text) })
	if len(shown) != PaneLines+1 || !strings.Contains(shown[0], "blocked the Web Pilot") {
		t.Fatalf("%d rows, the first %q", len(shown), shown[0])
	}
}

// The feed, between two batches, keeps the human's lines when it trims.
func TestFeedTrimKeepsTheHumansLines(t *testing.T) {
	var lines []audit.Line
	for i := range 3 * PaneLines {
		src := "ai"
		if i == 5 || i == 2*PaneLines+7 {
			src = "human"
		}
		lines = append(lines, audit.Line{Parsed: true, Event: audit.Event{Event: "e", Source: src, Setting: fmt.Sprint(i)}})
	}
	got := trimAudit(lines, PaneLines)
	if len(got) != PaneLines+1 || got[0].Event.Setting != "5" || got[1].Event.Setting != fmt.Sprint(2*PaneLines) {
		t.Fatalf("%d lines, first %v %v", len(got), got[0].Event, got[1].Event)
	}
}
