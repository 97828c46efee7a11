// Package wait is the one poll loop the tests share (kept under features/
// so the top level stays the product's layout): a test waits for a
// state it cannot be told about (a socket counted, a line written by
// another process, a screen drawn by tmux) by asking for it until it holds.
// A package's tests wait through it, in helpers that name what they wait
// for and bound the wait (server's eventually, e2e's waitFor).
package wait

import "time"

// Until asks cond until it holds (true) or within has passed (false). It
// asks again after 1 ms, then twice as long each time up to 50 ms: a state
// that comes quickly is seen quickly, and a slow one (a page's load, a tmux
// screen) is not asked for hundreds of times a second on a loaded machine.
// The bound only turns a hang into a failure: however large within is, a
// state that comes is seen within 50 ms.
func Until(within time.Duration, cond func() bool) bool {
	limit := time.NewTimer(within)
	defer limit.Stop()
	pause := time.Millisecond
	poll := time.NewTimer(pause)
	defer poll.Stop()
	for !cond() {
		select {
		case <-poll.C:
			pause = min(2*pause, maxPause)
			poll.Reset(pause)
		case <-limit.C:
			return cond()
		}
	}
	return true
}

// maxPause is the longest Until waits between two asks.
const maxPause = 50 * time.Millisecond
