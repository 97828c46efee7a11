package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
)

func sampleRead(seq uint64, mode string, entries int, secAgo float64) ReadMsg {
	return ReadMsg{Seq: seq, At: sampleNow.Add(-time.Duration(secAgo * float64(time.Second))), Tool: "observe", Mode: mode,
		Asked: "limit=20", Agent: "claude-code", Session: "8ed7cb41", Entries: &entries, Bytes: 1843, Port: 7890}
}

// sampleTraffic is a burst of requests, some failing, over the last
// half minute.
func sampleTraffic() EntriesMsg {
	var e EntriesMsg
	for i := range 40 {
		st := 200
		if i%7 == 0 {
			st = 500
		}
		e.Network = append(e.Network, capture.NetworkEntry{TS: at(-float64(i%30) - 0.5), Method: "GET", URL: fmt.Sprintf("http://localhost:3000/api/item/%d", i), Status: st})
	}
	return e
}

// TestGoldenReads draws the whole dashboard with the AI's reads: dim rows
// among the AI's actions in the Audit pane, the header's read line and the
// sparklines; then a failed read while the human has reads audited.
func TestGoldenReads(t *testing.T) {
	for _, tc := range []string{"reads_audit_pane", "reads_failed_audited"} {
		for _, size := range goldenSizes {
			w, h := size[0], size[1]
			t.Run(fmt.Sprintf("%s_%dx%d", tc, w, h), func(t *testing.T) {
				m := sampleModelAt(w, h)
				m.Update(sampleTraffic())
				m.Update(ReadsAuditMsg{AuditReads: tc == "reads_failed_audited"})
				m.Update(sampleRead(10, "logs", 20, 9))
				m.Update(sampleRead(11, "errors", 3, 2))
				if tc == "reads_audit_pane" {
					m.Update(keyMsg("6"))
				} else {
					m.Update(ReadMsg{Seq: 12, At: sampleNow.Add(-5 * time.Second), Tool: "generate", Mode: "sarif", Agent: "cursor", Bytes: 120, Error: "not_found", Port: 7890})
				}
				got := plainView(m.View())
				if n := strings.Count(got, "\n") + 1; n != h {
					t.Errorf("%d lines, want %d", n, h)
				}
				for i, l := range strings.Split(got, "\n") {
					if lw := lipgloss.Width(l); lw > w {
						t.Errorf("line %d is %d cells wide, past %d: %q", i+1, lw, w, l)
					}
				}
				golden(t, "pane_"+tc+fmt.Sprintf("_%dx%d", w, h), got)
			})
		}
	}
}

// The header says the newest read in the words, at every width.
func TestReadLine(t *testing.T) {
	m := sampleModelAt(80, 24)
	m.Update(sampleRead(1, "errors", 3, 2))
	for _, w := range []int{80, 120, 200} {
		line := plainView(activityView(&m.traffic, m.panes.audit.reads, sampleNow, w))
		if !strings.Contains(line, "AI read errors (3 entries) 2s ago") {
			t.Errorf("at %d: %q", w, line)
		}
	}
}

// A reconnect replays the reads the server holds: each is one row.
func TestReadReplayShownOnce(t *testing.T) {
	m := sampleModelAt(120, 40)
	m.Update(keyMsg("6"))
	before := m.panes.audit.rows.len()
	for range 2 {
		m.Update(sampleRead(5, "logs", 1, 9))
		m.Update(sampleRead(6, "errors", 3, 2))
	}
	if got := m.panes.audit.rows.len() - before; got != 2 {
		t.Fatalf("%d rows for 2 reads replayed twice", got)
	}
	if s := m.panes.audit.rows.at(m.panes.audit.rows.len() - 1).text; !strings.Contains(s, "AI ◁ claude-code") || !strings.Contains(s, "read errors · 3 entries · limit=20") {
		t.Errorf("row %q", s)
	}
}

// An ai_read line of the audit file is this server's read the stream
// already showed; another server's is shown from the file.
func TestAuditFileReadsNotDoubled(t *testing.T) {
	m := sampleModelAt(120, 40)
	before := m.panes.audit.rows.len()
	line := func(port int) audit.Line {
		return audit.Line{Parsed: true, Event: audit.Event{TS: "2026-01-24T15:32:08.000Z", Event: "ai_read", Name: "observe", Action: "errors", Source: "ai", Agent: "x", Port: port}}
	}
	m.Update(AuditMsg{Lines: []audit.Line{line(7890), line(7891)}, Path: m.panes.audit.path})
	if got := m.panes.audit.rows.len() - before; got != 1 {
		t.Fatalf("%d rows, want only the other server's", got)
	}
}

// The ring of seconds: an event counts in its second, a slot from an
// earlier minute reads as zero, an event ahead of the clock counts now,
// one older than the window not at all, nor takes a current second's slot.
func TestRates(t *testing.T) {
	var r rates
	now := sampleNow
	r.add(now.Add(-61*time.Second), now)
	r.add(now.Add(-59*time.Second), now)
	r.add(now.Add(-2*time.Second), now)
	r.add(now.Add(-2*time.Second), now)
	r.add(now.Add(5*time.Second), now)
	r.add(now.Add(-62*time.Second), now) // the slot of -2 s: it must not take it
	s := r.series(now)
	if s[0] != 1 || s[rateWindow-3] != 2 || s[rateWindow-1] != 1 || sum(s) != 4 {
		t.Fatalf("series %v", s)
	}
	// A minute on, every slot is stale.
	if s := r.series(now.Add(rateWindow * time.Second)); sum(s) != 0 {
		t.Fatalf("a minute later: %v", s)
	}
	// A slot reused by a later second starts from zero.
	later := now.Add(rateWindow * time.Second)
	r.add(later.Add(-2*time.Second), later)
	if s := r.series(later); s[rateWindow-3] != 1 {
		t.Fatalf("reused slot: %v", s)
	}
}

func sum(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}

// The sparkline: newest on the right, the tallest column full, an empty
// second the lowest bar and any event above it.
func TestSparkline(t *testing.T) {
	if got := sparkline([]int{0, 1, 0, 8}, 4); got != "▁▂▁█" {
		t.Errorf("got %q", got)
	}
	// Two seconds a column, summed, from the right.
	if got := sparkline([]int{1, 0, 0, 0, 3, 1}, 3); got != "▃▁█" {
		t.Errorf("got %q", got)
	}
	if got := []rune(sparkline(make([]int, 60), 8)); len(got) != 8 {
		t.Errorf("%d cells, want 8", len(got))
	}
}

// Errors count requests that failed and console errors; requests count
// every request.
func TestTrafficCounts(t *testing.T) {
	var tr traffic
	tr.count(EntriesMsg{
		Network: []capture.NetworkEntry{{TS: at(-1), Status: 200}, {TS: at(-1), Status: 404}, {TS: at(-1), Error: "net::ERR_FAILED"}},
		Logs:    []capture.LogEntry{{TS: at(-1), Level: "error"}, {TS: at(-1), Level: "log", Kind: "exception"}, {TS: at(-1), Level: "warn"}},
	}, sampleNow)
	if r, e := tr.req.series(sampleNow)[rateWindow-2], tr.errs.series(sampleNow)[rateWindow-2]; r != 3 || e != 4 {
		t.Fatalf("requests %d, errors %d", r, e)
	}
}

// The human's change of audit_reads reads as words in the Audit pane.
func TestAuditReadsLine(t *testing.T) {
	for on, want := range map[bool]string{true: "AI reads: written to the audit file too", false: "AI reads: shown here only"} {
		r := auditRow(audit.Line{Parsed: true, Event: audit.Event{TS: "2026-01-24T15:32:08.000Z", Event: "audit_reads", To: on, Source: "human", Agent: "human"}})
		if !strings.Contains(r.text, "you") || !strings.Contains(r.text, want) {
			t.Errorf("%v: %q", on, r.text)
		}
	}
}

// The tab bar is where a click looks for it, under the activity line.
func TestTabBarUnderActivityLine(t *testing.T) {
	for _, size := range goldenSizes {
		m := sampleModelAt(size[0], size[1])
		lines := strings.Split(plainView(m.View()), "\n")
		if !strings.Contains(lines[tabBarLine], "[1 Con") || !strings.Contains(lines[tabBarLine-1], "req/s ") {
			t.Errorf("at %dx%d line %d is %q", size[0], size[1], tabBarLine, lines[tabBarLine])
		}
	}
}
