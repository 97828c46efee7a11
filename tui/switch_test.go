package tui

import (
	"slices"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// A pane switch under a flood: between batches of 400 console entries and
// 400 requests, 1 and 2 switch panes. The p50 and p95 of a switch (update
// and view) are logged, for the closing note; timing is never asserted.
func TestPaneSwitchUnderFlood(t *testing.T) {
	for _, f := range [][2]string{{"", ""}, {"error", "500"}} {
		m := sampleModel()
		m.panes.console.SetFilter(f[0])
		m.panes.network.SetFilter(f[1])
		switchUnderFlood(t, m, f)
	}
}

func switchUnderFlood(t *testing.T, m *Model, f [2]string) {
	batch := floodBatch(400)
	for range 4 {
		m.Update(batch)
	}
	keys := []tea.Msg{keyMsg("2"), keyMsg("1")}
	var took []time.Duration
	for i := range 200 {
		m.Update(batch)
		_ = m.View()
		start := time.Now()
		m.Update(keys[i%2])
		_ = m.View()
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	t.Logf("pane switch under a flood, filters %q: p50 %v, p95 %v, max %v (%d switches)",
		f, took[len(took)/2], took[len(took)*95/100], took[len(took)-1], len(took))
}
