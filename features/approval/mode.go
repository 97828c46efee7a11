package approval

import "sync/atomic"

// The Web Pilot's approval modes, as the human names them (flag, dashboard,
// decisions file).
const (
	Auto = "auto" // actions run at once
	Ask  = "ask"  // every action waits for the human
)

// Mode is the approval mode in force. Its zero value is Auto; it is safe
// for concurrent use.
type Mode struct{ ask atomic.Bool }

// Asks reports whether actions wait for the human.
func (m *Mode) Asks() bool { return m.ask.Load() }

// String is the mode's name: Ask or Auto.
func (m *Mode) String() string {
	if m.Asks() {
		return Ask
	}
	return Auto
}

// Set makes the mode name's: Ask asks, anything else (Auto, or "" for a
// file that never chose) runs at once. It reports whether that changed the
// mode.
func (m *Mode) Set(name string) bool {
	ask := name == Ask
	return m.ask.Swap(ask) != ask
}
