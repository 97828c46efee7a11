package server

import (
	"sync"

	"github.com/gasoline-dev/gasoline/features/capturectl"
)

// alertState is where each MCP session is in the capture alerts: each
// alert reaches every session exactly once, from where the session joined.
type alertState struct {
	mu       sync.Mutex
	cursors  map[string]uint64 // MCP session id → next capture alert to deliver
	bootSeen map[string]bool   // MCP session id → it got boot
	boot     *capturectl.Alert // AI overrides a previous server dropped
}

// join starts a session's alerts at cursor.
func (a *alertState) join(id string, cursor uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cursors[id] = cursor
}

// leave forgets a session.
func (a *alertState) leave(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.cursors, id)
	delete(a.bootSeen, id)
}

// take is the alerts the session has not seen, the boot alert first the
// first time it asks; a session that never joined starts from now.
func (a *alertState) take(id string, ctl *capturectl.Controller) []capturectl.Alert {
	a.mu.Lock()
	defer a.mu.Unlock()
	cursor, ok := a.cursors[id]
	if !ok {
		cursor = ctl.AlertCursor()
	}
	alerts, next := ctl.AlertsSince(cursor)
	a.cursors[id] = next
	if a.boot != nil && !a.bootSeen[id] {
		a.bootSeen[id] = true
		alerts = append([]capturectl.Alert{*a.boot}, alerts...)
	}
	return alerts
}
