// Package verify runs verification sessions: a baseline of what fails in
// the browser now, a watch window while the user reproduces the scenario
// after a code change, and a comparison that says whether the fix worked.
package verify

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/snapshot"
)

// Limits of the spec: sessions hold snapshots, so only a few, not for long.
const (
	MaxSessions = 3
	TTL         = 30 * time.Minute
	MaxLabel    = 100
)

// Actions are the verify actions, in lifecycle order.
var Actions = []string{"start", "watch", "compare", "status", "cancel"}

// Session states; a compare whose window saw nothing comparable answers
// NotReproduced and leaves the session watching.
const (
	StatusBaseline      = "baseline_captured"
	StatusWatching      = "watching"
	StatusCompared      = "compared"
	StatusCancelled     = "cancelled"
	StatusNotReproduced = "not_reproduced"
)

// Request is one call; SessionID is required by every action but start
// (status without it lists the sessions). Label and URLFilter are read by start.
type Request struct {
	Action    string
	SessionID string
	Label     string
	URLFilter string
}

type session struct {
	id, label, status, urlFilter string
	created, watchAt             time.Time
	cursor                       uint64
	baseline                     snapshot.Snapshot
	verdict                      string // of the last compare
}

// Manager holds the sessions. Expired sessions are dropped whenever the
// manager is used, so no timer or goroutine runs per session.
type Manager struct {
	mu       sync.Mutex
	r        *snapshot.Reader
	sessions []*session // oldest first, at most MaxSessions
}

// New returns a manager reading r (whose clock it uses).
func New(r *snapshot.Reader) *Manager { return &Manager{r: r} }

// Do runs one action. Results are *StartResult, *WatchResult,
// *CompareResult, *StatusResult, *ListResult or *CancelResult; failures
// are *problem.Error.
func (m *Manager) Do(req Request) (any, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.r.Now()
	m.expire(now)
	if req.Action == "start" {
		return m.start(req, now)
	}
	if !slices.Contains(Actions, req.Action) {
		return nil, problem.New(problem.InvalidParam, "Unknown verify action %q. Valid: %s.", req.Action, strings.Join(Actions, ", "))
	}
	if req.SessionID == "" {
		if req.Action == "status" {
			return m.list(), nil
		}
		return nil, problem.New(problem.InvalidParam, "action %q needs session_id (the one start returned); status without it lists open sessions.", req.Action)
	}
	i := slices.IndexFunc(m.sessions, func(s *session) bool { return s.id == req.SessionID })
	if i < 0 {
		return nil, problem.New(problem.NotFound, "No verification session %q: sessions end on cancel and expire %v after start. Start a new one with action start.", req.SessionID, TTL)
	}
	s := m.sessions[i]
	switch req.Action {
	case "watch":
		s.status, s.watchAt, s.cursor = StatusWatching, now, m.r.Cursor()
		return &WatchResult{SessionID: s.id, Status: s.status, Message: "Monitoring started. Ask the user to reproduce the scenario, then compare."}, nil
	case "compare":
		return m.compare(s)
	case "cancel":
		m.sessions = slices.Delete(m.sessions, i, i+1)
		return &CancelResult{SessionID: s.id, Status: StatusCancelled}, nil
	}
	return s.view(), nil
}

// expire drops sessions older than TTL.
func (m *Manager) expire(now time.Time) {
	m.sessions = slices.DeleteFunc(m.sessions, func(s *session) bool { return now.Sub(s.created) >= TTL })
}

func (m *Manager) start(req Request, now time.Time) (any, error) {
	if len(m.sessions) >= MaxSessions {
		// A compared session has given its answer: it makes room first.
		i := slices.IndexFunc(m.sessions, func(s *session) bool { return s.status == StatusCompared })
		if i < 0 {
			ids := make([]string, len(m.sessions))
			for j, s := range m.sessions {
				ids[j] = s.id
			}
			return nil, problem.New(problem.RateLimited, "%d verification sessions are open (the limit): cancel one of %s, or compare one so it can be replaced.",
				MaxSessions, strings.Join(ids, ", "))
		}
		m.sessions = slices.Delete(m.sessions, i, i+1)
	}
	s := &session{
		id: newID(), label: capture.Truncate(req.Label, MaxLabel), status: StatusBaseline,
		urlFilter: req.URLFilter, created: now,
		baseline: m.r.Take(snapshot.Window{URLFilter: req.URLFilter}),
	}
	m.sessions = append(m.sessions, s)
	return &StartResult{SessionID: s.id, Status: s.status, Baseline: baselineOf(&s.baseline)}, nil
}

func (m *Manager) compare(s *session) (any, error) {
	if s.watchAt.IsZero() {
		return nil, problem.New(problem.InvalidParam, "Session %s is not watching yet: call action watch, have the user reproduce the scenario, then compare.", s.id)
	}
	after := m.r.Take(snapshot.Window{After: s.cursor, Since: s.watchAt, URLFilter: s.urlFilter})
	res, why := Compare(&s.baseline, &after)
	if res == nil {
		return &CompareResult{SessionID: s.id, Status: StatusNotReproduced, Label: s.label, Message: why}, nil
	}
	s.status, s.verdict = StatusCompared, res.Verdict
	return &CompareResult{SessionID: s.id, Status: s.status, Label: s.label, Result: res}, nil
}

func (m *Manager) list() *ListResult {
	out := &ListResult{Sessions: []StatusResult{}}
	for _, s := range m.sessions {
		out.Sessions = append(out.Sessions, *s.view())
	}
	return out
}

func (s *session) view() *StatusResult {
	st := &StatusResult{
		SessionID: s.id, Label: s.label, Status: s.status, URLFilter: s.urlFilter,
		CreatedAt: capture.Time{Time: s.created}, ExpiresAt: capture.Time{Time: s.created.Add(TTL)},
		Baseline: countsOf(&s.baseline), Verdict: s.verdict,
	}
	if !s.watchAt.IsZero() {
		st.WatchStartedAt = &capture.Time{Time: s.watchAt}
	}
	return st
}

func newID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return "verify-" + hex.EncodeToString(b)
}
