package server

import (
	"errors"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/features/redact"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// streamedLoads is how many of the newest page loads a new event stream
// opens with: the dashboard's page-load view draws one at a time.
const streamedLoads = 5

// redactResources scrubs secrets from each resource row's URL, as from
// the sample's own.
func redactResources(smp *perf.Sample) {
	for i := range smp.Resources {
		smp.Resources[i].URL = redact.URL(smp.Resources[i].URL)
	}
}

// loaded counts the resource rows a bound left out as lost, and shows
// the load to the dashboard.
func (p *pageLoads) loaded(a perf.Added) {
	l := a.Load
	if l.ResourcesDropped > 0 {
		from := l.Origin.Time
		if from.IsZero() {
			from = l.TS.Time
		}
		p.losses.Count(capture.Gap{Tab: l.TabID, Kind: "resource", Lost: int64(l.ResourcesDropped), From: from, To: l.TS.Time})
	}
	p.events.publish(wire.EventPageLoad, l)
}

// addLaterRows adds what came after a load's sample (requests, risen
// vitals) to that load and shows it again; rows past its bounds, or of a
// load no longer held, are counted as lost, and so is a vitals update of a
// load no longer held.
func (p *pageLoads) addLaterRows(smp perf.Sample) error {
	load, dropped, err := p.AddMore(smp)
	if err != nil && !errors.Is(err, perf.ErrNoLoad) {
		return err
	}
	if err != nil && !smp.Origin.IsZero() && smp.Origin.Before(p.started) {
		// A load that began before this server did: its predecessor held
		// it (page loads are not handed on), this one never could. Nothing
		// was lost on the way; after a restart this was a phantom loss.
		return nil
	}
	if dropped > 0 {
		p.losses.Count(capture.Gap{Tab: smp.TabID, Kind: "resource", Lost: int64(dropped), From: smp.TS.Time, To: smp.TS.Time})
	}
	if err != nil && smp.HasVitals() {
		p.losses.Count(capture.Gap{Tab: smp.TabID, Kind: "vitals", Lost: 1, From: smp.TS.Time, To: smp.TS.Time})
	}
	if err == nil {
		p.events.publish(wire.EventPageLoad, load)
	}
	return nil
}

// replay opens an event stream with the newest loads, oldest
// first.
func (p *pageLoads) replay(write func(event string, v any) error) {
	loads := p.Loads(streamedLoads)
	for i := len(loads) - 1; i >= 0; i-- {
		write(wire.EventPageLoad, loads[i])
	}
}
