package a11y

import (
	"strings"
	"testing"
	"time"
)

func TestCacheTTLAndOptions(t *testing.T) {
	c := NewCache()
	now := time.Unix(1000, 0)
	c.now = func() time.Time { return now }
	o := Options{Tags: []string{"wcag2aa", "wcag2a"}}
	c.Put(o, Result{URL: "http://x/", Summary: Summary{Violations: 2}})
	now = now.Add(10 * time.Second)
	r, ok := c.Get("http://x/", Options{Tags: []string{"wcag2a", "wcag2aa"}})
	if !ok || !r.Cached || r.AgeS != 10 || r.Summary.Violations != 2 {
		t.Fatalf("hit: %v %+v", ok, r)
	}
	if _, ok := c.Get("http://x/", Options{}); ok {
		t.Fatal("other options hit")
	}
	if _, ok := c.Get("http://y/", o); ok {
		t.Fatal("other page hit")
	}
	now = now.Add(CacheTTL)
	if _, ok := c.Get("http://x/", o); ok {
		t.Fatal("stale hit")
	}
	if l, ok := c.Latest(); !ok || l.URL != "http://x/" || l.Cached {
		t.Fatalf("latest: %+v", l)
	}
}

func TestEnforce(t *testing.T) {
	r := Result{Violations: []Rule{{ID: "x"}}}
	for range 15 {
		r.Violations[0].Nodes = append(r.Violations[0].Nodes, Node{Selector: "a", HTML: strings.Repeat("<", 500)})
	}
	r.Enforce()
	v := r.Violations[0]
	if len(v.Nodes) != MaxNodes || v.NodeCount != 15 || len(v.Nodes[0].HTML) != MaxHTML {
		t.Fatalf("%d %d %d", len(v.Nodes), v.NodeCount, len(v.Nodes[0].HTML))
	}
}
