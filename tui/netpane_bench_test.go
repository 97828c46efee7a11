package tui

import (
	"testing"
	"time"
)

// BenchmarkFloodNetworkSorted is BenchmarkFlood's batch with the Network
// pane in view, holding a page load's rows and sorted by took: each batch
// then sorts the pane's rows once.
func BenchmarkFloodNetworkSorted(b *testing.B) {
	perBatch := int(5000 * BatchEvery / time.Second)
	batch := floodBatch(perBatch)
	for _, order := range []string{"time", "took"} {
		b.Run(order, func(b *testing.B) {
			m := sampleModel()
			m.Update(samplePageLoad())
			m.Update(keyMsg("2"))
			if order == "took" {
				m.Update(keyMsg("o"))
			}
			b.ReportAllocs()
			for b.Loop() {
				m.Update(batch)
				_ = m.View()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/batch")
		})
	}
}
