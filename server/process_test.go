package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/portretry"
)

func portOf(t *testing.T, base string) int {
	t.Helper()
	_, p, _ := net.SplitHostPort(base[len("http://"):])
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// HostOrAttach is how main, the relay and the dashboard reach the port.
func TestHostOrAttach(t *testing.T) {
	ctx := context.Background()
	t.Run("free port is hosted", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		got, err := HostOrAttach(ctx, port, nil)
		if err != nil || got == nil {
			t.Fatalf("HostOrAttach = %v, %v; want a listener", got, err)
		}
		got.Close()
	})
	t.Run("a Gasoline owner is attached to", func(t *testing.T) {
		_, base := startServer(t)
		attached := 0
		ln, err := HostOrAttach(ctx, portOf(t, base), func(context.Context) error {
			if attached++; attached < 3 {
				return errors.New("not yet") // retried, as while the owner starts
			}
			return nil
		})
		if err != nil || ln != nil || attached != 3 {
			t.Fatalf("HostOrAttach = %v, %v after %d attaches; want attached on the 3rd", ln, err, attached)
		}
	})
	t.Run("a foreign program is an error at once", func(t *testing.T) {
		foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"service":"other"}`))
		}))
		defer foreign.Close()
		_, err := HostOrAttach(ctx, portOf(t, foreign.URL), nil)
		if !errors.Is(err, ErrForeignServer) {
			t.Fatalf("err = %v, want ErrForeignServer", err)
		}
	})
	t.Run("a port changing hands is retried until it is free", func(t *testing.T) {
		busy, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := busy.Addr().(*net.TCPAddr).Port
		var probes atomic.Int32
		go func() { // answers nothing: hangs up on each probe, then lets go
			for {
				c, err := busy.Accept()
				if err != nil {
					return
				}
				c.Close()
				if probes.Add(1) == 3 {
					busy.Close()
				}
			}
		}()
		ln, err := HostOrAttach(ctx, port, nil)
		if err != nil || ln == nil {
			t.Fatalf("HostOrAttach = %v, %v; want the listener once the port is free", ln, err)
		}
		ln.Close()
	})
	t.Run("the policy backs off to a ceiling", func(t *testing.T) {
		p := portretry.Policy
		if p.Delay(0) != p.First || p.Delay(1) != 2*p.First || p.Delay(100) != p.Max || p.Max > 2*time.Second {
			t.Fatalf("delays %v %v %v, max %v", p.Delay(0), p.Delay(1), p.Delay(100), p.Max)
		}
	})
}
