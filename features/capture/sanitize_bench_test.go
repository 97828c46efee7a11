package capture

import "testing"

// BenchmarkSanitizeLog is what ingest pays per console entry to cap and
// redact it (the entry of server's BenchmarkIngestLogs).
func BenchmarkSanitizeLog(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		e := LogEntry{Level: "log", Message: "render list item 42 took 3ms", Args: []string{`{"id":42,"name":"Alice"}`},
			Source: "http://localhost:3000/static/js/main.js:120:14", Page: "http://localhost:3000/dashboard"}
		e.sanitize()
	}
}
