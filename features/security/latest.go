package security

import "sync"

// Latest holds the newest report of the audit, for generate sarif, which
// documents the audit the AI ran last rather than running its own. Its
// zero value holds none; it is safe for concurrent use.
type Latest struct {
	mu sync.Mutex
	r  *Report
}

// Set makes r the latest report.
func (l *Latest) Set(r Report) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.r = &r
}

// Get is the latest report, false when no audit ran yet.
func (l *Latest) Get() (Report, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.r == nil {
		return Report{}, false
	}
	return *l.r, true
}
