// Package sessiondiff stores named snapshots of the browser's state and
// compares any two of them, or one with the live state ("current"): errors
// new and resolved, endpoints whose status or speed changed, WebSocket
// states and page-load performance with regressions flagged.
package sessiondiff

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/snapshot"
)

// Limits of the spec: each snapshot is up to ~50 KB.
const (
	MaxSnapshots = 10
	TTL          = 2 * time.Hour
	MaxName      = 50
	// Current names the live state; no snapshot can take the name.
	Current = "current"
)

// Actions of the diff mode.
var Actions = []string{"capture", "compare", "list", "delete"}

// Request is one call. Name is what capture stores and delete removes;
// compare diffs CompareA (Name when empty) against CompareB (Current when
// empty). URLFilter scopes a capture, and the live state of a compare.
type Request struct {
	Action    string
	Name      string
	CompareA  string
	CompareB  string
	URLFilter string
}

type entry struct {
	name string
	snap snapshot.Snapshot
	used uint64 // last capture or compare, for LRU eviction
}

// Store holds the named snapshots. Expired ones are dropped whenever the
// store is used: no timer runs.
type Store struct {
	mu      sync.Mutex
	r       *snapshot.Reader
	entries []*entry
	tick    uint64
}

// New returns a store whose snapshots read r (and use its clock).
func New(r *snapshot.Reader) *Store { return &Store{r: r} }

// CaptureResult answers capture.
type CaptureResult struct {
	Action   string           `json:"action"` // captured
	Name     string           `json:"name"`
	Evicted  string           `json:"evicted,omitempty"` // the least recently used snapshot, dropped for room
	Snapshot snapshot.Summary `json:"snapshot"`
}

// ListResult answers list, oldest capture first.
type ListResult struct {
	Action    string     `json:"action"` // listed
	Snapshots []ListItem `json:"snapshots"`
}

// ListItem is one stored snapshot.
type ListItem struct {
	Name       string       `json:"name"`
	CapturedAt capture.Time `json:"captured_at"`
	PageURL    string       `json:"page_url,omitempty"`
	URLFilter  string       `json:"url_filter,omitempty"`
	ErrorCount int          `json:"error_count"`
}

// DeleteResult answers delete.
type DeleteResult struct {
	Action string `json:"action"` // deleted
	Name   string `json:"name"`
}

// Do runs one action. Results are *CaptureResult, *CompareResult,
// *ListResult or *DeleteResult; failures are *problem.Error.
func (s *Store) Do(req Request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.r.Now()
	s.entries = slices.DeleteFunc(s.entries, func(e *entry) bool { return now.Sub(e.snap.CapturedAt.Time) >= TTL })
	switch req.Action {
	case "capture":
		return s.capture(req)
	case "compare":
		return s.compare(req)
	case "list":
		out := &ListResult{Action: "listed", Snapshots: []ListItem{}}
		for _, e := range s.entries {
			out.Snapshots = append(out.Snapshots, ListItem{e.name, e.snap.CapturedAt, e.snap.PageURL, e.snap.URLFilter, e.snap.ErrorCount()})
		}
		slices.SortStableFunc(out.Snapshots, func(a, b ListItem) int { return a.CapturedAt.Compare(b.CapturedAt.Time) })
		return out, nil
	case "delete":
		if err := checkName(req.Name); err != nil {
			return nil, err
		}
		i := s.find(req.Name)
		if i < 0 {
			return nil, s.notFound(req.Name)
		}
		s.entries = slices.Delete(s.entries, i, i+1)
		return &DeleteResult{Action: "deleted", Name: req.Name}, nil
	}
	return nil, problem.New(problem.InvalidParam, "Unknown diff action %q. Valid: %s.", req.Action, strings.Join(Actions, ", "))
}

func (s *Store) capture(req Request) (any, error) {
	if err := checkName(req.Name); err != nil {
		return nil, err
	}
	s.tick++
	e := &entry{name: req.Name, snap: s.r.Take(snapshot.Window{URLFilter: req.URLFilter}), used: s.tick}
	out := &CaptureResult{Action: "captured", Name: req.Name, Snapshot: e.snap.Summary()}
	if i := s.find(req.Name); i >= 0 {
		s.entries[i] = e // a capture under a taken name replaces it
		return out, nil
	}
	if len(s.entries) >= MaxSnapshots {
		lru := 0
		for i, x := range s.entries {
			if x.used < s.entries[lru].used {
				lru = i
			}
		}
		out.Evicted = s.entries[lru].name
		s.entries = slices.Delete(s.entries, lru, lru+1)
	}
	s.entries = append(s.entries, e)
	return out, nil
}

func (s *Store) compare(req Request) (any, error) {
	a, b := cmp.Or(req.CompareA, req.Name), cmp.Or(req.CompareB, Current)
	if a == "" {
		return nil, problem.New(problem.InvalidParam, "compare needs name (the snapshot to compare) and takes compare_b (another snapshot, or %q for the live state, the default).", Current)
	}
	sa, err := s.resolve(a, req.URLFilter, b)
	if err != nil {
		return nil, err
	}
	sb, err := s.resolve(b, req.URLFilter, a)
	if err != nil {
		return nil, err
	}
	d, sum := Compare(sa, sb)
	return &CompareResult{Action: "compared", A: a, B: b, Diff: d, Summary: sum}, nil
}

// resolve returns the named snapshot, or the live state for Current,
// filtered like the snapshot it is compared with unless filter says otherwise.
func (s *Store) resolve(name, filter, other string) (*snapshot.Snapshot, error) {
	if strings.EqualFold(name, Current) {
		if i := s.find(other); i >= 0 && filter == "" {
			filter = s.entries[i].snap.URLFilter
		}
		live := s.r.Take(snapshot.Window{URLFilter: filter})
		return &live, nil
	}
	i := s.find(name)
	if i < 0 {
		return nil, s.notFound(name)
	}
	s.tick++
	s.entries[i].used = s.tick
	return &s.entries[i].snap, nil
}

func (s *Store) find(name string) int {
	return slices.IndexFunc(s.entries, func(e *entry) bool { return e.name == name })
}

func (s *Store) notFound(name string) error {
	names := make([]string, len(s.entries))
	for i, e := range s.entries {
		names[i] = e.name
	}
	have := "none are stored"
	if len(names) > 0 {
		have = "stored: " + strings.Join(names, ", ")
	}
	return problem.New(problem.NotFound, "No snapshot named %q (%s; snapshots expire %v after capture). Capture it first with action capture.", name, have, TTL)
}

// checkName validates a snapshot name for capture and delete.
func checkName(name string) error {
	n := utf8.RuneCountInString(name)
	switch {
	case n == 0:
		return problem.New(problem.InvalidParam, "name is required: 1 to %d characters, e.g. \"before-deploy\".", MaxName)
	case n > MaxName:
		return problem.New(problem.InvalidParam, "name is %d characters long; the limit is %d.", n, MaxName)
	case strings.EqualFold(name, Current):
		return problem.New(problem.InvalidParam, "%q is reserved: it means the live state in compare. Choose another name.", Current)
	case strings.TrimSpace(name) != name:
		return problem.New(problem.InvalidParam, "name %q starts or ends with a space.", name)
	case strings.ContainsFunc(name, unicode.IsControl):
		return problem.New(problem.InvalidParam, "name contains a control character.")
	}
	return nil
}
