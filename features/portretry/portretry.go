// Package portretry is the one retry policy for reaching Gasoline's port: the
// server, the MCP relay and the dashboard each take the port or attach to
// the Gasoline server that owns it, and wait the same way while the port
// changes hands.
package portretry

import (
	"context"
	"errors"
	"time"
)

// Backoff is a retry schedule: First, doubling up to Max, giving up once
// Within has passed since the first try.
type Backoff struct {
	First, Max, Within time.Duration
}

// Policy is the schedule every part of Gasoline uses for the port. A
// takeover usually settles within a few tries; a peer that keeps failing
// is tried about once a second, never in a tight loop.
var Policy = Backoff{First: 25 * time.Millisecond, Max: time.Second, Within: 10 * time.Second}

// Delay is the wait before try number attempt+1 (attempt counts from 0).
func (b Backoff) Delay(attempt int) time.Duration {
	d := b.First
	for range attempt {
		if d >= b.Max {
			return b.Max
		}
		d *= 2
	}
	return min(d, b.Max)
}

// Sleep waits Delay(attempt); false when ctx ended first.
func (b Backoff) Sleep(ctx context.Context, attempt int) bool {
	t := time.NewTimer(b.Delay(attempt))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Retry calls try until it succeeds, says the error is final (again is
// false), or Within has passed; it returns the last error.
func (b Backoff) Retry(ctx context.Context, try func(context.Context) (again bool, err error)) error {
	deadline := time.Now().Add(b.Within)
	for attempt := 0; ; attempt++ {
		again, err := try(ctx)
		if err == nil || !again || time.Now().After(deadline) {
			return err
		}
		if !b.Sleep(ctx, attempt) {
			return errors.Join(err, ctx.Err())
		}
	}
}
