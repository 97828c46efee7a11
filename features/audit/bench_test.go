package audit

import (
	"path/filepath"
	"testing"
)

// BenchmarkWrite is one audit line (spec: under 1 ms, no fsync per write).
func BenchmarkWrite(b *testing.B) {
	l := Open(filepath.Join(b.TempDir(), "audit.jsonl"), nil)
	defer l.Close()
	e := Event{Event: "capture_override", Setting: "ws_mode", From: "lifecycle", To: "messages", Source: "ai", Agent: "claude-code"}
	for b.Loop() {
		if err := l.Write(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRotate is a write that rotates the file (spec: under 10 ms).
func BenchmarkRotate(b *testing.B) {
	l := Open(filepath.Join(b.TempDir(), "audit.jsonl"), nil, WithMaxSize(1))
	defer l.Close()
	e := Event{Event: "capture_override", Setting: "ws_mode", Source: "ai", Agent: "a"}
	l.Write(e)
	for b.Loop() {
		if err := l.Write(e); err != nil { // every write passes 1 byte: rotates
			b.Fatal(err)
		}
	}
}
