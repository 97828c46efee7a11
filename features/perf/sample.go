// Package perf keeps the page-load performance the extension measures: the
// newest sample per URL, a rolling weighted baseline per URL, and regression
// verdicts against it with the thresholds features/snapshot defines.
package perf

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Limits on what one sample may carry.
const (
	MaxTypes    = 16 // resource types in a breakdown
	MaxTypeName = 32
)

// Sample is one navigation's metrics, as the extension posts it once per
// page load after the load event, with what changed after that in later
// batches (More). Times are milliseconds since the navigation started; a
// zero time means "not measured", which is why CLS, where 0 is a real
// score, is a pointer. Field names match Performance so the two read alike.
type Sample struct {
	TS    capture.Time `json:"ts"`
	URL   string       `json:"url"`
	TabID int          `json:"tab,omitempty"`
	// Navigation timing.
	TTFB             float64 `json:"ttfb,omitempty"`
	DOMContentLoaded float64 `json:"dom_content_loaded,omitempty"`
	LoadTime         float64 `json:"load_time,omitempty"`
	// Paint and layout: first and largest contentful paint, and cumulative
	// layout shift (the largest session window of shifts). LCP and CLS are
	// the page's so far: later batches raise them (a larger paint before
	// the first input, a larger window of shifts).
	FCP float64  `json:"fcp,omitempty"`
	LCP float64  `json:"lcp,omitempty"`
	CLS *float64 `json:"cls,omitempty"`
	// INP: the slowest interaction (of the 98th percentile past 50) from
	// the navigation on, when the user did something: a later batch raises
	// it when a slower interaction comes, for as long as the page lives.
	INP float64 `json:"inp,omitempty"`
	// Long tasks (> 50 ms): count, blocking time (the sum of each task's
	// part over 50 ms) and the longest.
	LongTasks     int     `json:"long_tasks,omitempty"`
	TotalBlocking float64 `json:"total_blocking_time,omitempty"`
	LongestTask   float64 `json:"longest_task,omitempty"`
	// Resources: every resource entry of the navigation, and the same by
	// initiator type (script, img, css, fetch, xmlhttprequest, ...).
	RequestCount int                  `json:"request_count,omitempty"`
	TransferSize int64                `json:"transfer_size,omitempty"`
	ByType       map[string]Resources `json:"by_type,omitempty"`
	// Origin is when the navigation started (the page's time origin), what
	// the resources' times count from.
	Origin capture.Time `json:"origin,omitzero"`
	// Resources are the load's requests, for the dashboard's waterfall;
	// ResourcesDropped counts those a bound left out (the extension's or
	// the store's).
	Resources        []Resource `json:"resources,omitempty"`
	ResourcesDropped int        `json:"resources_dropped,omitempty"`
	// More marks a batch of what came after the load's sample: requests (a
	// lazy image, a script loaded on demand) and INP, CLS or LCP when they
	// rose, to add to the load of the same URL and Origin, not a load of
	// its own.
	More bool `json:"more,omitempty"`
}

// Resources counts the resources of one type and the bytes they moved.
type Resources struct {
	Count        int   `json:"count"`
	TransferSize int64 `json:"transfer_size,omitempty"`
}

// Sanitize caps the sample's strings and rejects what no browser measures:
// a missing URL, negative or absurd numbers.
func (s *Sample) Sanitize() error {
	s.URL = capture.Truncate(s.URL, capture.MaxURL)
	if s.URL == "" {
		return errors.New("url is required")
	}
	for name, v := range map[string]float64{"ttfb": s.TTFB, "dom_content_loaded": s.DOMContentLoaded, "load_time": s.LoadTime,
		"fcp": s.FCP, "lcp": s.LCP, "inp": s.INP, "total_blocking_time": s.TotalBlocking, "longest_task": s.LongestTask} {
		if v < 0 || v > float64(time.Hour/time.Millisecond) || math.IsNaN(v) {
			return fmt.Errorf("%s: %v is not a time in milliseconds under an hour", name, v)
		}
	}
	if s.CLS != nil && (*s.CLS < 0 || *s.CLS > 1000) {
		return fmt.Errorf("cls: %v is not a layout shift score", *s.CLS)
	}
	if s.LongTasks < 0 || s.RequestCount < 0 || s.TransferSize < 0 {
		return errors.New("long_tasks, request_count and transfer_size must not be negative")
	}
	if len(s.ByType) > 0 {
		by := make(map[string]Resources, min(len(s.ByType), MaxTypes))
		for k, v := range s.ByType {
			if len(by) == MaxTypes {
				break
			}
			if v.Count < 0 || v.TransferSize < 0 {
				return fmt.Errorf("by_type %q: counts must not be negative", k)
			}
			by[capture.Truncate(k, MaxTypeName)] = v
		}
		s.ByType = by
	}
	s.sanitizeResources()
	return nil
}

// Performance is the sample in the shape snapshots and diffs use.
func (s *Sample) Performance() Performance {
	return Performance{LoadTime: s.LoadTime, FCP: s.FCP, LCP: s.LCP, TTFB: s.TTFB,
		DOMContentLoaded: s.DOMContentLoaded, CLS: s.CLS, RequestCount: s.RequestCount,
		TransferSize: s.TransferSize, LongTasks: s.LongTasks, TotalBlocking: s.TotalBlocking, At: s.TS.Time}
}

// rounded returns s with times in whole milliseconds and CLS to three
// decimals: finer digits are noise that costs the AI tokens.
func (s Sample) rounded() Sample {
	for _, v := range []*float64{&s.TTFB, &s.DOMContentLoaded, &s.LoadTime, &s.FCP, &s.LCP, &s.INP, &s.TotalBlocking, &s.LongestTask} {
		*v = math.Round(*v)
	}
	if s.CLS != nil {
		c := math.Round(*s.CLS*1000) / 1000
		s.CLS = &c
	}
	return s
}

// Key is the page a sample belongs to: its URL without query or fragment,
// so a cache-buster or a token in the query does not split one page's
// baseline into many.
func Key(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		k, _, _ := strings.Cut(raw, "?")
		k, _, _ = strings.Cut(k, "#")
		return k
	}
	u.RawQuery, u.Fragment, u.RawFragment, u.User, u.ForceQuery = "", "", "", nil, false
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String()
}
