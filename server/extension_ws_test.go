package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// ackReader reads a worker socket's frames, keeping the acks and the
// server's hello.
type ackReader struct {
	c     *websocket.Conn
	acks  chan map[string]any
	hello chan map[string]any
}

func readAcks(t *testing.T, c *websocket.Conn) *ackReader {
	t.Helper()
	r := &ackReader{c: c, acks: make(chan map[string]any, 16), hello: make(chan map[string]any, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				close(r.acks)
				return
			}
			var m map[string]any
			if json.Unmarshal(b, &m) != nil {
				continue
			}
			switch m["type"] {
			case "ack":
				r.acks <- m
			case "hello":
				r.hello <- m
			}
		}
	}()
	return r
}

func (r *ackReader) send(t *testing.T, frame string) {
	t.Helper()
	if err := r.c.Write(context.Background(), websocket.MessageText, []byte(frame)); err != nil {
		t.Fatal(err)
	}
}

func (r *ackReader) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case m, ok := <-r.acks:
		if !ok {
			t.Fatal("the socket closed")
		}
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no ack")
	}
	return nil
}

// A capture batch on the extension's socket is stored as its POST would be
// and answered with the POST's status and answer (issue 12: a frame costs
// the browser a tenth of a request).
func TestSocketBatchIsStoredAndAcked(t *testing.T) {
	s, base := startServer(t)
	r := readAcks(t, extSocket(t, base))
	// The server says first that it takes batches: a worker sends them only then.
	select {
	case h := <-r.hello:
		if h["batches"] != true {
			t.Fatalf("hello %v", h)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no hello from the server")
	}

	r.send(t, "events 1 /logs\n"+`{"entries":[{"level":"error","message":"on the socket"},{"level":"log","message":7}],"dropped":3}`)
	a := r.next(t)
	if a["id"] != float64(1) || a["status"] != float64(200) || a["accepted"] != float64(1) ||
		!strings.Contains(mustJSON(a["rejected"]), `"index":1`) {
		t.Fatalf("ack %v", a)
	}
	if got := s.Store().Logs(capture.Query{}).Entries; len(got) != 1 || got[0].Message != "on the socket" {
		t.Fatalf("stored %v", got)
	}
	if d := s.Health().Extension.Dropped; d != 3 {
		t.Fatalf("dropped = %d, want 3", d)
	}

	// Every capture route, and the problems a POST would have had.
	r.send(t, "events 2 /network-bodies\n"+`{"bodies":[{"method":"POST","url":"http://app.test/login","request_body":"{\"password\":\"p\"}"}]}`)
	if a := r.next(t); a["id"] != float64(2) || a["status"] != float64(200) {
		t.Fatalf("bodies: %v", a)
	}
	if b := s.Store().Bodies(capture.Query{}).Entries; len(b) != 1 || strings.Contains(b[0].RequestBody, `"p"`) {
		t.Fatalf("bodies stored %v", b)
	}
	for _, c := range []struct{ frame, code string }{
		{"events 3 /nowhere\n{}", "not_found"},
		{"events 4 /logs\n{\"entries\":[", "invalid_param"},
		{"events 5 /logs\n{\"actions\":[]}", "invalid_param"},
		{"events 6 /logs\n" + `{"entries":[` + strings.Repeat(`{"level":"log","message":"m"},`, capture.MaxBatch) + `{"level":"log","message":"m"}]}`, "too_large"},
	} {
		r.send(t, c.frame)
		a := r.next(t)
		if a["error"] != c.code || a["status"] == float64(200) || a["accepted"] != nil {
			t.Errorf("%.30q: %v", c.frame, a)
		}
	}
	// A frame whose id cannot be read is dropped; the socket goes on.
	r.send(t, "events x /logs\n{\"entries\":[]}")
	r.send(t, "events 7 /logs\n{\"entries\":[]}")
	if a := r.next(t); a["id"] != float64(7) || a["status"] != float64(200) {
		t.Fatalf("after a bad frame: %v", a)
	}
}

// One batch at a time per socket: what a socket holds stays bounded.
func TestSocketBatchesOneAtATime(t *testing.T) {
	s, base := startServer(t)
	r := readAcks(t, extSocket(t, base))
	for range cap(s.in.slots) { // every slot busy with POSTs: the first frame waits
		s.in.slots <- struct{}{}
	}
	r.send(t, "events 1 /logs\n"+`{"entries":[{"level":"error","message":"waited"}]}`)
	r.send(t, "events 2 /logs\n"+`{"entries":[{"level":"error","message":"too soon"}]}`)
	if a := r.next(t); a["id"] != float64(2) || a["status"] != float64(429) || a["error"] != "rate_limited" {
		t.Fatalf("second frame: %v", a)
	}
	<-s.in.slots
	if a := r.next(t); a["id"] != float64(1) || a["status"] != float64(200) {
		t.Fatalf("first frame: %v", a)
	}
	// The ack comes once the next batch may be sent.
	r.send(t, "events 3 /logs\n"+`{"entries":[{"level":"error","message":"next"}]}`)
	if a := r.next(t); a["id"] != float64(3) || a["status"] != float64(200) {
		t.Fatalf("third frame: %v", a)
	}
	var got []string
	for _, e := range s.Store().Logs(capture.Query{}).Entries {
		got = append(got, e.Message)
	}
	if strings.Join(got, ",") != "next,waited" {
		t.Fatalf("stored %v", got)
	}
}

// A worker that holds events back while a page is busy says so; the AI's
// next read asks for them first and finds them (issue 12: delivery waits
// for a quiet page, what the AI reads does not).
func TestReadAsksForWhatTheWorkerHolds(t *testing.T) {
	s, base := startServer(t)
	c := mcpClient(t, s)
	conn := extSocket(t, base)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var flushes atomic.Int32
	go func() { // the worker: a flush delivers one held event, waits for its ack, then answers
		for {
			_, b, err := conn.Read(ctx)
			if err != nil {
				return
			}
			var m map[string]any
			if json.Unmarshal(b, &m) != nil || m["type"] != "query" || m["kind"] != "flush" {
				continue
			}
			flushes.Add(1)
			conn.Write(ctx, websocket.MessageText, []byte("events 1 /logs\n"+`{"entries":[{"level":"error","message":"held back"}]}`))
			for {
				if _, b, err = conn.Read(ctx); err != nil {
					return
				}
				if strings.Contains(string(b), `"ack"`) {
					break
				}
			}
			out, _ := json.Marshal(map[string]any{"type": "result", "id": m["id"], "result": map[string]any{"queued": 0}})
			conn.Write(ctx, websocket.MessageText, out)
		}
	}()
	waitReachable(t, s)
	errorsRead := func() string {
		out, isErr := callTool(t, c, "observe", map[string]any{"what": "errors"})
		if isErr {
			t.Fatalf("observe: %v", out)
		}
		return mustJSON(out)
	}

	if got := errorsRead(); strings.Contains(got, "held back") || flushes.Load() != 0 {
		t.Fatalf("a worker holding nothing was asked (%d): %s", flushes.Load(), got)
	}
	conn.Write(ctx, websocket.MessageText, []byte(`{"type":"holding"}`))
	eventually(t, "the holding frame read", s.queries.Holding)
	if got := errorsRead(); !strings.Contains(got, "held back") || flushes.Load() != 1 {
		t.Fatalf("after holding: %d flushes, read %s", flushes.Load(), got)
	}
	errorsRead()
	if n := flushes.Load(); n != 1 {
		t.Fatalf("asked %d times for one holding", n)
	}
}
