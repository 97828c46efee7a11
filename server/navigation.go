package server

import (
	"time"

	"github.com/gasoline-dev/gasoline/server/wire"
)

// publishLeft tells the dashboards that a tab's document went away,
// for the line their Console and Network panes draw where the page
// navigated or reloaded.
func (tp *trackedPage) publishLeft(p PageLeft) {
	ts := p.TS
	if ts.IsZero() {
		ts.Time = time.Now()
	}
	tp.events.publish(wire.EventPageLeft, wire.PageLeft{Tab: p.TabID, Reason: p.Reason, TS: ts})
}
