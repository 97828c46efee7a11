package perf

import (
	"errors"
	"slices"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Bounds of one load's resource rows: the browser's resource timing buffer
// holds 250 entries by default, and the bytes bound keeps a page of long
// URLs from holding more than the count allows for short ones. What a
// bound leaves out is counted in ResourcesDropped, never silently gone.
const (
	MaxResources     = 300
	MaxResourceBytes = 64 << 10
	// resourceOverhead is what one row costs beside its strings.
	resourceOverhead = 96
)

// Resource is one request of a page load as the performance timeline has
// it: the document itself (type "navigation") and every resource entry
// (type its initiatorType: script, link, img, css, fetch, ...). Times are
// milliseconds since the navigation started; the phases are there when the
// browser exposes them (a cross-origin resource without
// Timing-Allow-Origin has none).
type Resource struct {
	URL      string  `json:"url"`
	Type     string  `json:"type"`
	Start    float64 `json:"start"`
	Duration float64 `json:"duration,omitempty"`
	// Size is the response body's bytes, decoded: the network list's size
	// of the same request (0 cross-origin without Timing-Allow-Origin).
	Size   int64 `json:"size,omitempty"`
	Status int   `json:"status,omitempty"`
	// The phases: DNS lookup, TCP connect (TLS included), TLS, waiting for
	// the first byte after the request was sent, and the download.
	DNS      float64 `json:"dns,omitempty"`
	Connect  float64 `json:"connect,omitempty"`
	TLS      float64 `json:"tls,omitempty"`
	Wait     float64 `json:"wait,omitempty"`
	Download float64 `json:"download,omitempty"`
}

// End is when the resource finished, in milliseconds since the navigation
// started.
func (r Resource) End() float64 { return r.Start + r.Duration }

// bytes is what the row costs the store.
func (r Resource) bytes() int { return len(r.URL) + len(r.Type) + resourceOverhead }

// sanitizeResources caps each row's strings, zeroes impossible times and
// keeps at most MaxResources rows and MaxResourceBytes, counting the rest
// in ResourcesDropped.
func (s *Sample) sanitizeResources() {
	if s.ResourcesDropped < 0 {
		s.ResourcesDropped = 0
	}
	if len(s.Resources) == 0 {
		s.Resources = nil
		return
	}
	kept := make([]Resource, 0, min(len(s.Resources), MaxResources))
	used := 0
	for i, r := range s.Resources {
		r.URL = capture.Truncate(r.URL, capture.MaxURL)
		r.Type = capture.Truncate(r.Type, MaxTypeName)
		if r.Type == "" {
			r.Type = "other"
		}
		if len(kept) == MaxResources || used+r.bytes() > MaxResourceBytes {
			s.ResourcesDropped += len(s.Resources) - i
			break
		}
		used += r.bytes()
		for _, v := range []*float64{&r.Start, &r.Duration, &r.DNS, &r.Connect, &r.TLS, &r.Wait, &r.Download} {
			*v = capture.Millis(*v)
		}
		if r.Size < 0 {
			r.Size = 0
		}
		if r.Status < 0 || r.Status > 999 {
			r.Status = 0
		}
		kept = append(kept, r)
	}
	s.Resources = kept
}

// Loads lists the newest sample of each page, with its resource rows,
// newest first, at most limit.
func (s *Store) Loads(limit int) []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := s.matching("")
	if limit > 0 && len(ps) > limit {
		ps = ps[:limit]
	}
	out := make([]Sample, len(ps))
	for i, p := range ps {
		out[i] = p.latest
	}
	return out
}

// ErrNoLoad is a batch of later rows whose page load the store does not
// hold (evicted, or sampled before the server started).
var ErrNoLoad = errors.New("the page load these requests belong to is not held")

// AddMore adds a batch of what came after a load's sample (smp.More) to
// that load: its requests, within the load's bounds, and its vitals (see
// raise), which the load's baseline and verdict then follow. It returns
// the load as stored and how many of the batch's rows were left out (those
// the extension could not send included), which the caller counts as lost;
// with ErrNoLoad, all of them, and the batch's vitals are not kept either
// (the caller counts that batch: HasVitals).
func (s *Store) AddMore(smp Sample) (Sample, int, error) {
	if err := smp.Sanitize(); err != nil {
		return Sample{}, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pages[Key(smp.URL)]
	if p == nil || !p.latest.Origin.Equal(smp.Origin.Time) {
		return Sample{}, len(smp.Resources) + smp.ResourcesDropped, ErrNoLoad
	}
	used := 0
	for _, r := range p.latest.Resources {
		used += r.bytes()
	}
	rows := slices.Clip(p.latest.Resources) // appending copies: a reader's slice stays as it was
	dropped := smp.ResourcesDropped
	for i, r := range smp.Resources {
		if len(rows) == MaxResources || used+r.bytes() > MaxResourceBytes {
			dropped += len(smp.Resources) - i
			break
		}
		used += r.bytes()
		rows = append(rows, r)
	}
	p.latest.Resources = rows
	p.latest.ResourcesDropped += dropped
	if p.latest.raise(smp) {
		p.judge()
	}
	return p.latest, dropped, nil
}

// HasVitals reports whether a later batch carries vitals.
func (s Sample) HasVitals() bool { return s.INP > 0 || s.LCP > 0 || s.CLS != nil }

// raise takes a later batch's INP, CLS and LCP where they are higher than
// the load's: over the page's life INP only meets slower interactions, CLS
// larger session windows and LCP later, larger paints, so a lower value is
// a batch that arrived late, never an improvement. It reports whether any
// changed. CLS gets a pointer of its own: readers hold copies of the old one.
func (s *Sample) raise(m Sample) bool {
	changed := false
	for _, v := range []struct{ to, from *float64 }{{&s.INP, &m.INP}, {&s.LCP, &m.LCP}} {
		if *v.from > *v.to {
			*v.to, changed = *v.from, true
		}
	}
	if m.CLS != nil && (s.CLS == nil || *m.CLS > *s.CLS) {
		c := *m.CLS
		s.CLS, changed = &c, true
	}
	return changed
}
