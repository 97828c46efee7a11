package server

import (
	"context"
	"testing"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// Every observe mode answers a type that carries the riders (alerts, what
// the human pointed at): one that did not would leave them for the next
// observe, and a new mode must embed them (a pointer to a struct with
// riders, see observed.go).
func TestEveryObserveModeCarriesRiders(t *testing.T) {
	s := New(Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no extension: a mode that waits for one returns at once
	for _, m := range s.observeModes() {
		v, err := m.run(ctx, args{})
		if m.name == "storage" && problem.From(err).Code == problem.ExtensionNotConnected {
			continue // it asks the page: storageObserved embeds the riders (checked where it is declared)
		}
		if err != nil {
			t.Errorf("observe %s: %v", m.name, err)
			continue
		}
		if _, ok := v.(observed); !ok {
			t.Errorf("observe %s answered %T", m.name, v)
		}
	}
}
