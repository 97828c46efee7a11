package browser

import (
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/internal/wait"
)

// eventually waits until cond holds, for a state made by another goroutine
// or process; 10 s only turns a hang into a failure on a loaded machine.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !wait.Until(10*time.Second, cond) {
		t.Fatalf("%s: not within 10 s", what)
	}
}
