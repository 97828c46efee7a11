package perf

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestResourcesBoundedByCountAndCounted(t *testing.T) {
	s, _ := newStore()
	smp := Sample{URL: home, LoadTime: 900, ResourcesDropped: 2}
	for range MaxResources + 25 {
		smp.Resources = append(smp.Resources, Resource{URL: home + "a.js", Type: "script", Start: 10, Duration: 5})
	}
	if _, err := s.Add(smp); err != nil {
		t.Fatal(err)
	}
	got := s.Loads(0)[0]
	if len(got.Resources) != MaxResources {
		t.Errorf("kept %d rows, want %d", len(got.Resources), MaxResources)
	}
	if got.ResourcesDropped != 27 {
		t.Errorf("dropped %d, want the extension's 2 and the store's 25", got.ResourcesDropped)
	}
}

func TestResourcesBoundedByBytes(t *testing.T) {
	long := home + strings.Repeat("x", 1900)
	smp := Sample{URL: home, LoadTime: 900}
	for range 100 {
		smp.Resources = append(smp.Resources, Resource{URL: long, Type: "img"})
	}
	if err := smp.Sanitize(); err != nil {
		t.Fatal(err)
	}
	used := 0
	for _, r := range smp.Resources {
		used += len(r.URL) + len(r.Type)
	}
	if used > MaxResourceBytes || len(smp.Resources) == 100 {
		t.Errorf("%d rows, %d bytes kept: past the bound of %d B", len(smp.Resources), used, MaxResourceBytes)
	}
	if len(smp.Resources)+smp.ResourcesDropped != 100 {
		t.Errorf("%d kept + %d dropped, want 100", len(smp.Resources), smp.ResourcesDropped)
	}
}

func TestResourceTimesSanitized(t *testing.T) {
	smp := Sample{URL: home, Resources: []Resource{{URL: "u", Start: math.NaN(), Duration: -4, Wait: 5e9, Size: -1, Status: 7000}}}
	if err := smp.Sanitize(); err != nil {
		t.Fatal(err)
	}
	r := smp.Resources[0]
	if r.Start != 0 || r.Duration != 0 || r.Wait != 0 || r.Size != 0 || r.Status != 0 || r.Type != "other" {
		t.Errorf("got %+v, want impossible values zeroed and the type other", r)
	}
}

// The AI's observe performance has the totals, not the dashboard's rows.
func TestSnapshotsLeaveRowsOut(t *testing.T) {
	s, _ := newStore()
	if _, err := s.Add(Sample{URL: home, LoadTime: 900, INP: 120.4, Resources: []Resource{{URL: home, Type: "navigation"}}}); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s.Snapshots("", 0))
	if strings.Contains(string(b), "resources") || strings.Contains(string(b), "origin") || !strings.Contains(string(b), `"inp":120`) {
		t.Errorf("snapshot %s: want inp and no rows", b)
	}
	if len(s.Loads(0)[0].Resources) != 1 {
		t.Error("Loads lost the rows")
	}
}
