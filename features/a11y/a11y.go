// Package a11y holds accessibility audit results (axe-core, run in the page
// by the extension): their limits, a 30 s cache per page, and the latest
// audit for reports.
package a11y

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Limits of an audit result.
const (
	MaxNodes   = 10
	MaxHTML    = 200
	CacheTTL   = 30 * time.Second
	Timeout    = 30 * time.Second
	maxEntries = 20
)

// Node is one element that fails (or passes) a rule.
type Node struct {
	Selector       string `json:"selector"`
	HTML           string `json:"html,omitempty"`
	FailureSummary string `json:"failureSummary,omitempty"`
}

// Rule is one axe-core rule's outcome on the page.
type Rule struct {
	ID          string   `json:"id"`
	Impact      string   `json:"impact,omitempty"`
	Description string   `json:"description,omitempty"`
	Help        string   `json:"help,omitempty"`
	HelpURL     string   `json:"helpUrl,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	NodeCount   int      `json:"nodeCount"`
	Nodes       []Node   `json:"nodes,omitempty"`
}

// Summary counts rules by outcome.
type Summary struct {
	Violations   int `json:"violations"`
	Passes       int `json:"passes"`
	Incomplete   int `json:"incomplete"`
	Inapplicable int `json:"inapplicable"`
}

// Result is one audit of one page.
type Result struct {
	URL        string  `json:"url"`
	Timestamp  string  `json:"timestamp,omitempty"`
	Summary    Summary `json:"summary"`
	Violations []Rule  `json:"violations,omitempty"`
	Incomplete []Rule  `json:"incomplete,omitempty"`
	Passes     []Rule  `json:"passes,omitempty"`
	// Cached is set on answers served from the cache, with their age.
	Cached bool    `json:"cached,omitempty"`
	AgeS   float64 `json:"age_s,omitempty"`
}

// Enforce applies the limits to an answer from the page.
func (r *Result) Enforce() {
	for _, rules := range [][]Rule{r.Violations, r.Incomplete, r.Passes} {
		for i := range rules {
			rl := &rules[i]
			rl.NodeCount = max(rl.NodeCount, len(rl.Nodes))
			if len(rl.Nodes) > MaxNodes {
				rl.Nodes = rl.Nodes[:MaxNodes]
			}
			for j := range rl.Nodes {
				rl.Nodes[j].HTML = capture.Truncate(rl.Nodes[j].HTML, MaxHTML)
			}
		}
	}
}

// Options are what an audit was asked for; results are cached per options.
type Options struct {
	Scope         string   `json:"scope,omitempty"`
	Tags          []string `json:"tags,omitempty"`
	IncludePasses bool     `json:"include_passes,omitempty"`
}

func (o Options) key(url string) string {
	tags := slices.Clone(o.Tags)
	slices.Sort(tags)
	p := "0"
	if o.IncludePasses {
		p = "1"
	}
	return url + "\x00" + o.Scope + "\x00" + strings.Join(tags, ",") + "\x00" + p
}

type entry struct {
	r  Result
	at time.Time
}

// Cache keeps recent audits per page and options, and the latest audit.
// Safe for concurrent use; bounded to a few pages.
type Cache struct {
	mu      sync.Mutex
	entries map[string]entry
	latest  *Result
	now     func() time.Time
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{entries: make(map[string]entry), now: time.Now} }

// Get returns a fresh cached audit of url with these options.
func (c *Cache) Get(url string, o Options) (Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[o.key(url)]
	if !ok {
		return Result{}, false
	}
	age := c.now().Sub(e.at)
	if age >= CacheTTL {
		delete(c.entries, o.key(url))
		return Result{}, false
	}
	r := e.r
	r.Cached, r.AgeS = true, age.Round(100*time.Millisecond).Seconds()
	return r, true
}

// Put stores an audit as the latest and caches it.
func (c *Cache) Put(o Options, r Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for k, e := range c.entries {
		if now.Sub(e.at) >= CacheTTL || len(c.entries) >= maxEntries {
			delete(c.entries, k)
		}
	}
	c.entries[o.key(r.URL)] = entry{r, now}
	c.latest = &r
}

// Latest returns the most recent audit, for reports.
func (c *Cache) Latest() (Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.latest == nil {
		return Result{}, false
	}
	return *c.latest, true
}
