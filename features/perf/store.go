package perf

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Bounds of the store: 20 pages, each holding its newest sample (its
// resource rows at most MaxResourceBytes) and two baselines (~1 KB), so
// the whole store stays under 1.4 MB.
const (
	MaxPages = 20
	// Warmup is how many loads the baseline averages evenly before it
	// becomes a rolling average that gives each new load RecentWeight.
	Warmup       = 5
	RecentWeight = 0.2
)

// Store holds per-page samples and baselines. Safe for concurrent use.
type Store struct {
	mu    sync.Mutex
	now   func() time.Time
	pages map[string]*page
	// timings are the newest loads' page timings, for a HAR (timings.go).
	timings []LoadTimings
}

type page struct {
	latest Sample
	// prior is the baseline before latest was folded in: what latest is
	// judged against. Zero Samples when latest was the page's first load.
	prior, base Baseline
	diff        *Diff
}

// NewStore returns an empty store reading time from now (time.Now when nil).
func NewStore(now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{now: now, pages: make(map[string]*page)}
}

// Added is what one sample did to its page's baseline.
type Added struct {
	URL string
	// Regressions names the metrics (Performance JSON names) that
	// regressed against the baseline the sample was compared with.
	Regressions []string
	// BaselineLoad is that baseline's load time (0 on a page's first load),
	// what a streaming "performance regression" notice quotes.
	BaselineLoad float64
	// Load is the sample as stored, its resource rows bounded.
	Load Sample
}

// Add sanitises a sample, judges it against its page's baseline, then folds
// it into that baseline. A new page evicts the page sampled longest ago
// once MaxPages are held.
func (s *Store) Add(smp Sample) (Added, error) {
	if err := smp.Sanitize(); err != nil {
		return Added{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if smp.TS.IsZero() {
		smp.TS.Time = s.now()
	}
	key := Key(smp.URL)
	p := s.pages[key]
	if p == nil {
		if len(s.pages) >= MaxPages {
			s.evictOldest()
		}
		p = &page{}
		s.pages[key] = p
	}
	p.latest, p.prior = smp, p.base
	p.judge()
	s.keepTimings(&smp)
	return Added{URL: key, Regressions: regressed(p.diff), BaselineLoad: p.prior.m[load].v, Load: smp}, nil
}

// judge compares the page's newest load with the baseline before it, and
// makes the baseline that one with the newest load folded in: again each
// time a later batch changes the load's vitals, so the baseline holds the
// load's current values.
func (p *page) judge() {
	cur := p.latest.Performance()
	p.diff = nil
	if p.prior.Samples > 0 {
		base := p.prior.Performance()
		p.diff = Compare(&base, &cur)
	}
	p.base = p.prior
	p.base.fold(cur)
}

func (s *Store) evictOldest() {
	var oldest string
	var at time.Time
	for k, p := range s.pages {
		if oldest == "" || p.latest.TS.Before(at) {
			oldest, at = k, p.latest.TS.Time
		}
	}
	delete(s.pages, oldest)
}

// Latest returns the newest sample's metrics of a page whose URL contains
// urlFilter (any page when empty). It is a LatestFunc.
func (s *Store) Latest(urlFilter string) (Performance, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := s.matching(urlFilter)
	if len(ps) == 0 {
		return Performance{}, false
	}
	return ps[0].latest.Performance(), true
}

// matching lists the pages whose URL contains filter, newest sample first.
// The caller holds the lock.
func (s *Store) matching(filter string) []*page {
	var ps []*page
	for k, p := range s.pages {
		if strings.Contains(k, filter) || strings.Contains(p.latest.URL, filter) {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b *page) int {
		if c := b.latest.TS.Compare(a.latest.TS.Time); c != 0 {
			return c
		}
		return strings.Compare(a.latest.URL, b.latest.URL)
	})
	return ps
}

// Clear forgets every sample and baseline.
func (s *Store) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.pages)
	s.timings = nil
}

// Snapshot is a page's newest sample as observe{what:"performance"} lists
// it, with how many loads its baseline holds and what regressed.
type Snapshot struct {
	Sample
	BaselineLoads int      `json:"baseline_loads,omitempty"`
	Regressions   []string `json:"regressions,omitempty"`
}

// Snapshots lists the newest sample of each page whose URL contains
// urlFilter, newest first, at most limit (all when limit <= 0).
func (s *Store) Snapshots(urlFilter string, limit int) []Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := s.matching(urlFilter)
	if limit > 0 && len(ps) > limit {
		ps = ps[:limit]
	}
	out := make([]Snapshot, len(ps))
	for i, p := range ps {
		smp := p.latest.rounded()
		// The rows are the dashboard's waterfall; the AI has the network
		// buffer and this sample's totals.
		smp.Resources, smp.Origin = nil, capture.Time{}
		out[i] = Snapshot{Sample: smp, BaselineLoads: p.prior.Samples, Regressions: regressed(p.diff)}
	}
	return out
}
