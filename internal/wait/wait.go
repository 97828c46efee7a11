// Package wait is the one poll loop the tests share: a test waits for a
// state it cannot be told about (a socket counted, a line written by
// another process, a screen drawn by tmux) by asking for it until it holds.
// Each package's tests wrap it in an eventually helper with their bound.
package wait

import "time"

// every is how often cond is asked: short beside any wait a test has, long
// enough that the asking costs a loaded machine nothing.
const every = 5 * time.Millisecond

// Until asks cond until it holds (true) or within has passed (false). The
// bound only turns a hang into a failure: a state that comes is seen within
// a few milliseconds, however large within is.
func Until(within time.Duration, cond func() bool) bool {
	poll := time.NewTicker(every)
	defer poll.Stop()
	limit := time.NewTimer(within)
	defer limit.Stop()
	for !cond() {
		select {
		case <-poll.C:
		case <-limit.C:
			return cond()
		}
	}
	return true
}
