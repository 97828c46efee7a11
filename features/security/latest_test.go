package security

import "testing"

func TestLatestReport(t *testing.T) {
	var l Latest
	if _, ok := l.Get(); ok {
		t.Fatal("a report before any audit")
	}
	l.Set(Report{Findings: []Finding{{Rule: "first"}}})
	l.Set(Report{Findings: []Finding{{Rule: "second"}}})
	r, ok := l.Get()
	if !ok || len(r.Findings) != 1 || r.Findings[0].Rule != "second" {
		t.Fatalf("latest: %+v %v", r, ok)
	}
}
