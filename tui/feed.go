package tui

import (
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
)

// BatchEvery is the most often outside events reach the model: a flood of
// any rate arrives as about a dozen updates a second, and key presses are
// handled in between.
const BatchEvery = 80 * time.Millisecond

// PaneLines bounds the lines a stream pane keeps; older ones scroll away.
const PaneLines = 1000

// maxNotices bounds server log lines and errors waiting for a batch.
const maxNotices = 50

// feed collects outside events from any goroutine and hands them to the
// model as one batchMsg at a time. What waits is bounded: at most PaneLines
// entries per pane (a pane would not show more), and only the newest
// status, overrides, pilot and connection state.
type feed struct {
	every time.Duration
	done  <-chan struct{}
	ready chan struct{} // holds a token while something waits

	mu        sync.Mutex
	last      time.Time
	logs      []capture.LogEntry
	network   []capture.NetworkEntry
	ws        []capture.WSEvent
	actions   []capture.Action
	bodies    []capture.NetworkBody
	skipped   int
	audit     []audit.Line
	auditPath string
	status    *StatusMsg
	overrides *OverridesMsg
	pilot     *PilotMsg
	conn      *ConnMsg
	dropped   int
	notices   []tea.Msg
	loads     []PageLoadMsg // page loads, newest maxLoads (netpane.go)
}

// newFeed returns a feed delivering at most every `every` until done closes.
func newFeed(every time.Duration, done <-chan struct{}) *feed {
	return &feed{every: every, done: done, ready: make(chan struct{}, 1)}
}

// keepNewest appends add to s, keeping about the newest max: it trims only
// past twice that, so appending one at a time stays cheap. trimTo finishes
// the job when the batch is taken.
func keepNewest[T any](s []T, add []T, max int, dropped *int) []T {
	s = append(s, add...)
	if len(s) > 2*max {
		s = trimTo(s, max, dropped)
	}
	return s
}

// trimTo keeps the newest max elements of s, counting the others in dropped.
func trimTo[T any](s []T, max int, dropped *int) []T {
	if n := len(s) - max; n > 0 {
		*dropped += n
		s = append(s[:0:0], s[n:]...)
	}
	return s
}

// trimAudit keeps the newest max lines, and the human's lines whatever
// their age (up to maxPinned of them), in their order.
func trimAudit(s []audit.Line, max int) []audit.Line {
	drop := len(s) - max
	if drop <= 0 {
		return s
	}
	humans := 0
	for _, l := range s[:drop] {
		if humanLine(l) {
			humans++
		}
	}
	out := make([]audit.Line, 0, max+min(humans, maxPinned))
	for i, l := range s {
		if i >= drop || (humanLine(l) && humans <= maxPinned) {
			out = append(out, l)
		} else if humanLine(l) {
			humans-- // the oldest of too many
		}
	}
	return out
}

// Push queues an outside message for the next batch. It never blocks.
func (f *feed) Push(msg tea.Msg) {
	f.mu.Lock()
	switch m := msg.(type) {
	case EntriesMsg:
		f.logs = keepNewest(f.logs, m.Logs, PaneLines, &f.skipped)
		f.network = keepNewest(f.network, m.Network, PaneLines, &f.skipped)
		f.ws = keepNewest(f.ws, m.WS, PaneLines, &f.skipped)
		f.actions = keepNewest(f.actions, m.Actions, PaneLines, &f.skipped)
		var ignored int // bodies are kept for details, never shown as rows
		f.bodies = keepNewest(f.bodies, m.Bodies, capture.BodyCap, &ignored)
		f.skipped += m.Skipped
	case AuditMsg:
		if m.Path != f.auditPath {
			f.audit = nil // lines of another file would be out of order
		}
		f.auditPath = m.Path
		f.audit = append(f.audit, m.Lines...)
		if len(f.audit) > 2*PaneLines {
			f.audit = trimAudit(f.audit, PaneLines)
		}
	case StatusMsg:
		f.status = &m
	case OverridesMsg:
		f.overrides = &m
	case PilotMsg:
		f.pilot = &m
	case ConnMsg:
		f.conn = &m
	case DroppedMsg:
		f.dropped += m.Count
	case PageLoadMsg:
		f.loads = keepNewest(f.loads, []PageLoadMsg{m}, maxLoads, &f.skipped)
	default:
		var ignored int
		f.notices = keepNewest(f.notices, []tea.Msg{msg}, maxNotices, &ignored)
	}
	f.mu.Unlock()
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// take empties the feed into one batch, in the order the model should
// apply it: connection and state first, then what streams.
func (f *feed) take() batchMsg {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ignored int
	f.logs = trimTo(f.logs, PaneLines, &f.skipped)
	f.network = trimTo(f.network, PaneLines, &f.skipped)
	f.ws = trimTo(f.ws, PaneLines, &f.skipped)
	f.actions = trimTo(f.actions, PaneLines, &f.skipped)
	f.bodies = trimTo(f.bodies, capture.BodyCap, &ignored)
	f.audit = trimAudit(f.audit, PaneLines)
	f.notices = trimTo(f.notices, maxNotices, &ignored)
	f.loads = trimTo(f.loads, maxLoads, &f.skipped)
	var b batchMsg
	if f.conn != nil {
		b = append(b, *f.conn)
	}
	if f.status != nil {
		b = append(b, *f.status)
	}
	if f.overrides != nil {
		b = append(b, *f.overrides)
	}
	if f.pilot != nil {
		b = append(b, *f.pilot)
	}
	if len(f.logs)+len(f.network)+len(f.ws)+len(f.actions)+len(f.bodies) > 0 || f.skipped > 0 {
		b = append(b, EntriesMsg{Logs: f.logs, Network: f.network, WS: f.ws, Actions: f.actions, Bodies: f.bodies, Skipped: f.skipped})
	}
	if len(f.audit) > 0 {
		b = append(b, AuditMsg{Lines: f.audit, Path: f.auditPath})
	}
	if f.dropped > 0 {
		b = append(b, DroppedMsg{Count: f.dropped})
	}
	b = append(b, f.notices...)
	for _, l := range f.loads {
		b = append(b, l)
	}
	f.conn, f.status, f.overrides, f.pilot = nil, nil, nil, nil
	f.logs, f.network, f.ws, f.audit, f.notices = nil, nil, nil, nil, nil
	f.actions, f.bodies, f.loads = nil, nil, nil
	f.skipped, f.dropped = 0, 0
	f.last = time.Now()
	return b
}

// Next is the command that waits for the next batch. The model re-issues
// it after each batch, so exactly one is ever outstanding.
func (f *feed) Next() tea.Cmd {
	return func() tea.Msg {
		for {
			select {
			case <-f.ready:
			case <-f.done:
				return nil
			}
			f.mu.Lock()
			wait := f.every - time.Since(f.last)
			f.mu.Unlock()
			if wait > 0 {
				// Let a burst gather: this is the render throttle.
				t := time.NewTimer(wait)
				select {
				case <-t.C:
				case <-f.done:
					t.Stop()
					return nil
				}
			}
			// Whatever was pushed while we waited is in this batch; drop
			// the token it left so the next wait does not wake for nothing.
			select {
			case <-f.ready:
			default:
			}
			if b := f.take(); len(b) > 0 {
				return b
			}
		}
	}
}
