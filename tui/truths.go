package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// lostFor is how long after the dashboard last passed events over its
// notice stays: a few batches, so a flood that goes on keeps it on and one
// that stopped takes it away.
const lostFor = 4 * BatchEvery

// aiNote is the newest AI override as the header names it, with what x
// does to it where the human is: outside the Overrides pane x revokes
// that one; inside, x revokes the selected row, and the line says so when
// the selected row is another.
func (m *Model) aiNote() string {
	s, ok := m.panes.overrides.newest()
	if !ok {
		return ""
	}
	what := "x revoke"
	if m.panes.active == paneOverrides {
		if sel, ok := m.panes.overrides.selected(); !ok || sel.Name != s.Name {
			what = "x here revokes the selected row"
		}
	}
	return fmt.Sprintf("AI %s set %s → %s · %s", s.Agent, s.Name, show(s.Value), what)
}

// passedOver is how many events the dashboard passed over under load, and
// when it last did.
type passedOver struct {
	n  int
	at time.Time
}

// passedOver counts events passed over.
func (m *Model) passedOver(n int) {
	if n > 0 {
		m.lost.n += n
		m.lost.at = m.now()
	}
}

// lostNotice is the header's notice of events passed over: a warning
// while it goes on, then a dim count, so the loss stays readable.
func (m *Model) lostNotice() part {
	switch {
	case m.lost.n == 0:
		return nil
	case m.now().Sub(m.lost.at) < lostFor:
		return part{styleWarn.Render(fmt.Sprintf("passing events over under load: %d so far; the panes keep the newest %d", m.lost.n, PaneLines)),
			styleWarn.Render(fmt.Sprintf("%d passed over (load)", m.lost.n))}
	}
	return part{styleDim.Render(fmt.Sprintf("%d passed over under load", m.lost.n)), styleDim.Render(fmt.Sprintf("%d passed over", m.lost.n)), ""}
}

// lostTick redraws once the notice of events passed over is due to go,
// when nothing else would.
type lostTick struct{}

func lostExpiry() tea.Cmd {
	return tea.Tick(lostFor, func(time.Time) tea.Msg { return lostTick{} })
}
