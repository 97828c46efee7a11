package apicontract

import (
	"strings"
	"sync"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Limits, from the spec.
const (
	MaxEndpoints  = 30 // tracked at once; the least recently called goes first
	StatusHistory = 20 // status codes kept per endpoint
	MinConsistent = 3  // identical responses that establish a shape
	MaxViolations = 10 // distinct violations kept per endpoint
)

// Tracker learns endpoint shapes from captured bodies. Safe for concurrent
// use; its memory is bounded by MaxEndpoints shapes of at most a few
// hundred nodes each.
type Tracker struct {
	mu        sync.Mutex
	endpoints map[string]*endpoint
	seq       uint64
	requests  int
	evicted   int
	now       func() time.Time
}

// New returns an empty tracker.
func New() *Tracker {
	return &Tracker{endpoints: map[string]*endpoint{}, now: time.Now}
}

type endpoint struct {
	key      string // "GET /api/users/:id"
	url      string // origin and normalized path, for url_filter
	calls    int
	seq      uint64 // last observation, for eviction
	last     capture.Time
	statuses []status // last StatusHistory responses, oldest first
	codes    map[int]int

	shape       *Shape // candidate while learning, established after
	consistent  int    // responses matching shape in a row (learning) or in all (established)
	established bool
	compared    int // successful JSON responses compared since established, the establishing ones included
	shaped      int // successful JSON responses seen
	violations  []*violation
	dropped     int // distinct violations past MaxViolations
}

type status struct {
	code int
	ts   capture.Time
}

type violation struct {
	Violation
	fields string // identity for counting repeats
	last   capture.Time
}

// Observe feeds one captured body to the tracker: its status always, its
// shape when it is a successful JSON response. Endpoints are created by
// JSON responses only, so page and asset loads do not take the slots.
func (t *Tracker) Observe(b capture.NetworkBody) {
	if b.Status == 0 || b.Method == "" {
		return
	}
	var shape *Shape
	isJSON := strings.Contains(strings.ToLower(b.ContentType), "json")
	if s, ok := Extract(b.ResponseBody); ok {
		shape, isJSON = s, true
	}
	key := Endpoint(b.Method, b.URL)
	ts := b.TS
	if ts.IsZero() {
		ts = capture.Time{Time: t.now()}
	}

	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.endpoints[key]
	if e == nil {
		if !isJSON {
			return
		}
		if len(t.endpoints) >= MaxEndpoints {
			t.evictOldest()
		}
		origin, path := Split(b.URL)
		e = &endpoint{key: key, url: origin + path, codes: map[int]int{}}
		t.endpoints[key] = e
	}
	t.requests++
	t.seq++
	e.seq, e.last = t.seq, ts
	e.calls++
	e.codes[b.Status]++
	e.statuses = append(e.statuses, status{b.Status, ts})
	if len(e.statuses) > StatusHistory {
		e.statuses = append(e.statuses[:0], e.statuses[1:]...)
	}
	if shape != nil && b.Status >= 200 && b.Status < 300 {
		e.observeShape(shape, ts)
	}
}

func (t *Tracker) evictOldest() {
	var oldest *endpoint
	for _, e := range t.endpoints {
		if oldest == nil || e.seq < oldest.seq {
			oldest = e
		}
	}
	delete(t.endpoints, oldest.key)
	t.evicted++
}

// observeShape applies the learning rule: the first response proposes a
// shape; a different one replaces it until MinConsistent identical
// responses establish it; from then on differences are violations and the
// shape no longer changes (except nulls refined to a type).
func (e *endpoint) observeShape(s *Shape, ts capture.Time) {
	e.shaped++
	if e.shape == nil {
		e.shape, e.consistent = s, 1
		return
	}
	var diffs []diff
	compare(e.shape, s, "", false, &diffs)
	if !e.established {
		if hasNonNull(diffs) {
			e.shape, e.consistent = s, 1
			return
		}
		refine(e.shape, s)
		e.consistent++
		if e.consistent >= MinConsistent {
			e.established, e.compared = true, e.consistent
		}
		return
	}
	e.compared++
	if len(diffs) == 0 {
		e.consistent++
	} else {
		for _, v := range violations(diffs, e.consistent) {
			e.record(v, ts)
		}
	}
	refine(e.shape, s)
}

// hasNonNull: while learning, a field turning null does not restart
// learning, since optional values are often null.
func hasNonNull(diffs []diff) bool {
	for _, d := range diffs {
		if d.kind != "null" {
			return true
		}
	}
	return false
}

func (e *endpoint) record(v Violation, ts capture.Time) {
	id := v.Type + "\x00" + v.Field + "\x00" + strings.Join(v.Fields, ",")
	for _, old := range e.violations {
		if old.fields == id {
			old.Count++
			old.last = ts
			return
		}
	}
	if len(e.violations) >= MaxViolations {
		e.dropped++
		return
	}
	v.Count, v.First = 1, ts
	e.violations = append(e.violations, &violation{Violation: v, fields: id})
}

// Clear forgets every endpoint.
func (t *Tracker) Clear() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endpoints = map[string]*endpoint{}
	t.requests, t.evicted = 0, 0
}
