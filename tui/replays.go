package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/server/wire"
)

// A replay of the human's flow under way is shown in the header, and the
// human's x stops it between two steps, whichever pane is shown: the one
// thing the AI is doing in the tab right now is what x takes back first.

// replayPart is the header's line for the replays under way; nil when none.
func replayPart(h *Health) part {
	if h == nil || len(h.Replays) == 0 {
		return nil
	}
	r := h.Replays[0]
	long := fmt.Sprintf("▶ %s replays your flow on tab %d: step %d of %d · x stops it", clean(r.Agent), r.Tab, r.Step, r.Steps)
	short := fmt.Sprintf("▶ replay %d/%d · x stops", r.Step, r.Steps)
	if n := len(h.Replays); n > 1 {
		long += fmt.Sprintf(" (and %d more)", n-1)
	}
	return part{styleWarn.Render(long), styleWarn.Render(short), styleWarn.Render("▶ replay")}
}

// replaying says whether a replay is under way, as of the last status.
func (m *Model) replaying() bool { return m.health != nil && len(m.health.Replays) > 0 }

// stopReplays is x while a replay runs.
func (m *Model) stopReplays() tea.Cmd {
	c := m.client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ids, err := c.StopReplays(ctx)
		if err != nil {
			return noteMsg("stop the replay: " + err.Error())
		}
		if len(ids) == 0 {
			return noteMsg("no replay under way: it had ended")
		}
		return noteMsg("stopped the replay " + strings.Join(ids, ", ") + " before its next step")
	}
}

// StopReplays stops the replays under way (POST /api/replays/stop).
func (c *Client) StopReplays(ctx context.Context) ([]string, error) {
	var a wire.ReplaysStopped
	err := c.do(ctx, "POST", "/api/replays/stop", struct{}{}, &a)
	return a.Stopped, err
}
