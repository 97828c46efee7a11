package capturectl

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/audit"
)

// BenchmarkSettingChange is one AI change as the spec counts it: map
// write, alert and audit line (spec: under 0.1 ms).
func BenchmarkSettingChange(b *testing.B) {
	ck := &clock{time.Now()}
	log := audit.Open(filepath.Join(b.TempDir(), "audit.jsonl"), nil)
	defer log.Close()
	c := New(log, ck.now)
	values := []string{"messages", "lifecycle"}
	i := 0
	for b.Loop() {
		ck.advance(time.Second) // past the rate limit
		if _, err := c.Set("bench", map[string]any{"ws_mode": values[i%2]}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkSettingsPoll is building the /settings overrides (spec: under 0.05 ms).
func BenchmarkSettingsPoll(b *testing.B) {
	c := New(nil, nil)
	c.Set("bench", map[string]any{"ws_mode": "messages", "log_level": "all"})
	for b.Loop() {
		_ = c.Values()
	}
}
