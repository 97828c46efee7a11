package portretry

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The schedule doubles from First and stays at Max once there.
func TestDelayDoublesUpToMax(t *testing.T) {
	b := Backoff{First: 25 * time.Millisecond, Max: time.Second}
	want := []time.Duration{25, 50, 100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		if got := b.Delay(i); got != w*time.Millisecond {
			t.Fatalf("Delay(%d) = %v, want %v", i, got, w*time.Millisecond)
		}
	}
	if got := b.Delay(1 << 20); got != time.Second {
		t.Fatalf("Delay of a huge attempt = %v, want Max", got)
	}
}

func TestSleepEndsEarlyWhenCancelled(t *testing.T) {
	b := Backoff{First: time.Millisecond, Max: time.Hour}
	if !b.Sleep(context.Background(), 0) {
		t.Fatal("an uncancelled sleep said it was cancelled")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	t0 := time.Now()
	if b.Sleep(ctx, 40) || time.Since(t0) > 10*time.Second {
		t.Fatalf("a cancelled sleep of an hour returned true or took %v", time.Since(t0))
	}
}

func TestRetry(t *testing.T) {
	b := Backoff{First: time.Millisecond, Max: 4 * time.Millisecond, Within: time.Hour}
	busy := errors.New("port busy")
	t.Run("tries until it succeeds", func(t *testing.T) {
		n := 0
		err := b.Retry(context.Background(), func(context.Context) (bool, error) {
			if n++; n < 4 {
				return true, busy
			}
			return false, nil
		})
		if err != nil || n != 4 {
			t.Fatalf("err %v after %d tries, want nil after 4", err, n)
		}
	})
	t.Run("a final error stops at once", func(t *testing.T) {
		n := 0
		err := b.Retry(context.Background(), func(context.Context) (bool, error) { n++; return false, busy })
		if !errors.Is(err, busy) || n != 1 {
			t.Fatalf("err %v after %d tries, want busy after 1", err, n)
		}
	})
	t.Run("gives up once Within has passed", func(t *testing.T) {
		short := Backoff{First: time.Millisecond, Max: 2 * time.Millisecond, Within: 30 * time.Millisecond}
		n, t0 := 0, time.Now()
		err := short.Retry(context.Background(), func(context.Context) (bool, error) { n++; return true, busy })
		if !errors.Is(err, busy) || n < 2 || time.Since(t0) > 20*time.Second {
			t.Fatalf("err %v after %d tries and %v", err, n, time.Since(t0))
		}
	})
	t.Run("a cancelled context ends the wait with both errors", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		slow := Backoff{First: time.Hour, Max: time.Hour, Within: time.Hour}
		n := 0
		err := slow.Retry(ctx, func(context.Context) (bool, error) { n++; cancel(); return true, busy })
		if !errors.Is(err, busy) || !errors.Is(err, context.Canceled) || n != 1 {
			t.Fatalf("err %v after %d tries, want busy and context.Canceled after 1", err, n)
		}
	})
}

// The policy every part uses waits at most a second between tries and
// gives up within seconds, never in a tight loop.
func TestPolicy(t *testing.T) {
	if Policy.Delay(0) <= 0 || Policy.Delay(100) > time.Second || Policy.Within < time.Second {
		t.Fatalf("policy %+v", Policy)
	}
}
