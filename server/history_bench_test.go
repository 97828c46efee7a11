package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkIngestLogsWithHistory is BenchmarkIngestLogs with every entry
// also saved to an on-disk history, as `gasoline` runs.
func BenchmarkIngestLogsWithHistory(b *testing.B) {
	benchIngest(b, Config{Version: "bench", HistoryDir: filepath.Join(b.TempDir(), "history")})
}

// BenchmarkSuccessorFirstAnswer measures what a new owner of the port
// needs before its first answer: restoring a history whose every buffer is
// full, then answering observe{what:"errors"}. /typical has entries of
// typical sizes, /max entries at their size caps (the byte caps bound it),
// /empty an empty history: a new server's own start.
func BenchmarkSuccessorFirstAnswer(b *testing.B) {
	for _, c := range []struct {
		name string
		fill func(*Server)
	}{{"empty", func(*Server) {}}, {"typical", fillTypical}, {"max", fillAll}} {
		b.Run(c.name, func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "history")
			func() { // the predecessor is garbage after: only the successor's heap counts
				prev := New(Config{Version: "bench", HistoryDir: dir})
				c.fill(prev)
				prev.closeHistory()
			}()
			raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
				"params": map[string]any{"name": "observe", "arguments": map[string]any{"what": "errors"}}})
			var restored int
			for b.Loop() {
				s := New(Config{Version: "bench", HistoryDir: dir})
				sess := newSession()
				sess.Initialize()
				out, _ := json.Marshal(s.MCP().HandleMessage(s.MCP().WithContext(context.Background(), sess), raw))
				if len(out) < 100 {
					b.Fatalf("first answer: %s", out)
				}
				restored = s.hist.info.Restored
				b.StopTimer() // what the successor does later
				s.closeHistory()
				b.StartTimer()
			}
			b.ReportMetric(float64(restored), "entries")
			// What a restored server holds: the buffers, no more.
			s := New(Config{Version: "bench", HistoryDir: dir})
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
			s.closeHistory()
			b.ReportMetric(float64(dirSize(dir))/(1<<20), "MiB-on-disk")
		})
	}
}

func dirSize(dir string) int64 {
	var n int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}
