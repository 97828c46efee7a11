package pointing

import (
	"sync"
	"time"
)

// Picks from the extension arrive at a person's pace: a click in the page
// each. Any process of the user can post to the extension's route with its
// Origin, so past that pace a pick is refused and counted rather than put in
// front of every AI session.
const (
	// PicksPerSecond is the sustained pace a person picks at, at most.
	PicksPerSecond = 2
	// PickBurst is how many picks may come at once after a pause.
	PickBurst = 4
)

// Pace is a token bucket: Burst picks at once, then Rate a second.
type Pace struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	tokens  float64
	last    time.Time
	refused int64
}

// NewPace returns a full bucket of burst, refilled at rate a second.
func NewPace(rate, burst float64) *Pace {
	return &Pace{rate: rate, burst: burst, tokens: burst}
}

// Allow takes one pick at now, or counts it refused.
func (p *Pace) Allow(now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.last.IsZero() && now.After(p.last) {
		p.tokens = min(p.burst, p.tokens+now.Sub(p.last).Seconds()*p.rate)
	}
	if p.last.IsZero() || now.After(p.last) {
		p.last = now
	}
	if p.tokens < 1 {
		p.refused++
		return false
	}
	p.tokens--
	return true
}

// Refused counts the picks refused since the start.
func (p *Pace) Refused() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}
