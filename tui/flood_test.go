package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// floodBatch is what BatchEvery of a 5,000 events/s flood brings: 400
// console entries and 400 requests.
func floodBatch(n int) batchMsg {
	logs := make([]capture.LogEntry, n)
	net := make([]capture.NetworkEntry, n)
	for i := range n {
		logs[i] = capture.LogEntry{TS: at(float64(i) / 1000), Level: []string{"log", "warn", "error"}[i%3],
			Message: fmt.Sprintf("flood message %d with some text to make it realistic", i)}
		net[i] = capture.NetworkEntry{TS: at(float64(i) / 1000), Method: "GET", Status: 200 + i%4*100,
			URL: fmt.Sprintf("http://localhost:3000/api/items/%d?page=2", i), DurationMS: float64(i % 500)}
	}
	return batchMsg{EntriesMsg{Logs: logs, Network: net}}
}

// BenchmarkFlood measures what a flood costs the model. A key press waits
// at most for one batch update in progress, so "batch" bounds key latency;
// "key" is a key press with a full pane.
func BenchmarkFlood(b *testing.B) {
	perBatch := int(5000 * BatchEvery / time.Second)
	batch := floodBatch(perBatch)
	b.Run("batch", func(b *testing.B) {
		m := sampleModel()
		b.ReportAllocs()
		for b.Loop() {
			m.Update(batch)
			_ = m.View()
		}
		perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		b.ReportMetric(float64(2*perBatch)*1e9/perOp, "events/s")
		b.ReportMetric(perOp/1e6, "ms/batch")
	})
	b.Run("key", func(b *testing.B) {
		m := sampleModel()
		m.Update(batch)
		m.Update(batch)
		b.ReportAllocs()
		keys := []tea.Msg{keyMsg("up"), keyMsg("down"), keyMsg("2"), keyMsg("1")}
		i := 0
		for b.Loop() {
			m.Update(keys[i%len(keys)])
			_ = m.View()
			i++
		}
	})
	b.Run("sse-decode", func(b *testing.B) {
		frame := []byte(`{"kind":"logs","seq":1,"entry":{"ts":"2026-01-24T15:32:00.000Z","level":"error","message":"TypeError: Cannot read properties of undefined","source":"http://localhost:3000/src/App.tsx:10:2"}}`)
		b.ReportAllocs()
		for b.Loop() {
			decodeEvent("entry", frame)
		}
	})
}

// A flood of 5,000 events/s from a real server: the dashboard coalesces it
// into a few batches, stays bounded, and every key press in between takes
// effect. The figures are logged (timing is never asserted).
func TestFloodKeepsKeysResponsive(t *testing.T) {
	_, addr := startServer(t)
	d := attach(t, addr, nil)
	var (
		batches, events int
		slowest         time.Duration
		spent           time.Duration
	)
	d.observe = func(msg tea.Msg, took time.Duration) {
		if b, ok := msg.(batchMsg); ok {
			batches++
			for _, sub := range b {
				if e, ok := sub.(EntriesMsg); ok {
					events += len(e.Logs) + len(e.Network)
				}
			}
			spent += took
			slowest = max(slowest, took)
		}
	}

	// 5,000 console entries a second for a second, in posts of 50.
	const total, per = 5000, 50
	posted := make(chan struct{})
	go func() {
		defer close(posted)
		tick := time.NewTicker(time.Second / (total / per))
		defer tick.Stop()
		for i := 0; i < total; i += per {
			var b strings.Builder
			b.WriteString(`{"entries":[`)
			for j := range per {
				if j > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `{"level":"log","message":"flood %05d"}`, i+j)
			}
			b.WriteString(`]}`)
			post(t, addr, "/logs", b.String())
			<-tick.C
		}
	}()

	d.await("the flood to start", func() bool { return d.m.panes.console.rows.len() > 0 })
	d.press("space") // pause the console mid-flood
	frozen := rowTexts(d.m.panes.console)
	d.press("tab", "tab", "tab", "tab", "tab", "tab") // round the panes and back
	if d.m.panes.active != paneConsole || !d.m.panes.console.paused {
		t.Fatalf("keys lost under the flood: pane %d, paused %v", d.m.panes.active, d.m.panes.console.paused)
	}
	d.await("entries held while paused", func() bool { return d.m.panes.console.held.len() > 0 })
	if !slices.Equal(rowTexts(d.m.panes.console), frozen) {
		t.Fatal("a paused pane changed")
	}
	d.press("space")
	d.await("the flood to end", func() bool {
		select {
		case <-posted:
			return true
		default:
			return false
		}
	})
	d.await("the last entry", func() bool { return strings.Contains(d.screen(), "flood 04999") })
	if n := d.m.panes.console.rows.len(); n != PaneLines {
		t.Fatalf("the console holds %d lines, want its bound %d", n, PaneLines)
	}
	if batches*10 > events {
		t.Fatalf("%d batches for %d events: the flood was not coalesced", batches, events)
	}
	t.Logf("%d events in %d batches; model update+view: %v in all, slowest batch %v (a key waits at most that); %d lost",
		events, batches, spent, slowest, d.m.lost.n)
}

// The feed keeps at most a pane's worth of each kind, counting the rest.
func TestFeedIsBounded(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	f := newFeed(0, done)
	for i := range 3 * PaneLines {
		f.Push(EntriesMsg{Logs: []capture.LogEntry{{Message: fmt.Sprint(i)}}})
	}
	f.Push(StatusMsg{Version: "a"})
	f.Push(StatusMsg{Version: "b"})
	f.Push(DroppedMsg{Count: 2})
	f.Push(DroppedMsg{Count: 3})
	b := f.Next()().(batchMsg)
	var got EntriesMsg
	var status []string
	var dropped int
	for _, m := range b {
		switch m := m.(type) {
		case EntriesMsg:
			got = m
		case StatusMsg:
			status = append(status, m.Version)
		case DroppedMsg:
			dropped += m.Count
		}
	}
	if len(got.Logs) != PaneLines || got.Logs[0].Message != fmt.Sprint(2*PaneLines) || got.Skipped != 2*PaneLines {
		t.Fatalf("kept %d from %q, skipped %d", len(got.Logs), got.Logs[0].Message, got.Skipped)
	}
	if !slices.Equal(status, []string{"b"}) || dropped != 5 {
		t.Fatalf("status %v dropped %d", status, dropped)
	}
}
