package server

import (
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// eventually waits until cond holds, for a state the test cannot be told
// about (a socket counted, an audit line written); 10 s only turns a hang
// into a failure, on a loaded machine under -race.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !wait.Until(10*time.Second, cond) {
		t.Fatalf("%s: not within 10 s", what)
	}
}
