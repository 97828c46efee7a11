package perf

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
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

// Requests after the sample join their load within its bounds; those past
// them, and a batch whose load is not held, are counted.
func TestAddMoreJoinsItsLoadWithinTheBounds(t *testing.T) {
	s, _ := newStore()
	origin := capture.Time{Time: t0}
	first := Sample{URL: home, Origin: origin, LoadTime: 900}
	for range MaxResources - 2 {
		first.Resources = append(first.Resources, Resource{URL: home + "a.js", Type: "script"})
	}
	if _, err := s.Add(first); err != nil {
		t.Fatal(err)
	}
	more := Sample{URL: home + "?q=1", Origin: origin, More: true, ResourcesDropped: 1,
		Resources: []Resource{{URL: home + "lazy1.png", Type: "img"}, {URL: home + "lazy2.png", Type: "img"}, {URL: home + "lazy3.png", Type: "img"}}}
	load, dropped, err := s.AddMore(more)
	if err != nil {
		t.Fatal(err)
	}
	if len(load.Resources) != MaxResources || dropped != 2 || load.ResourcesDropped != 2 {
		t.Errorf("%d rows, %d dropped now, %d in all; want %d, 2 (the third and the extension's one), 2", len(load.Resources), dropped, load.ResourcesDropped, MaxResources)
	}
	if got := s.Loads(0)[0]; len(got.Resources) != MaxResources || got.Resources[MaxResources-1].URL != home+"lazy2.png" {
		t.Errorf("the store holds %d rows", len(got.Resources))
	}
	if got := s.Snapshots("", 0)[0]; got.LoadTime != 900 || got.BaselineLoads != 0 {
		t.Errorf("later rows changed the load's metrics or baseline: %+v", got)
	}
	other := more
	other.Origin = capture.Time{Time: t0.Add(time.Minute)} // a later navigation the store never sampled
	if _, n, err := s.AddMore(other); !errors.Is(err, ErrNoLoad) || n != 4 {
		t.Errorf("rows of a load not held: %d counted, %v", n, err)
	}
}
