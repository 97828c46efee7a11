package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// fakeWorker plays the extension's service worker on /ws/extension.
type fakeWorker struct {
	c       *websocket.Conn
	queries atomic.Int32
}

func connectWorker(t *testing.T, base string, answer func(q map[string]any) map[string]any) *fakeWorker {
	t.Helper()
	return connectWorkerHello(t, base, nil, answer)
}

// connectWorkerHello is connectWorker whose worker first says hello.
func connectWorkerHello(t *testing.T, base string, hello map[string]any, answer func(q map[string]any) map[string]any) *fakeWorker {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, _, err := websocket.Dial(ctx, strings.Replace(base, "http", "ws", 1)+"/ws/extension",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {ExtensionOrigin}}})
	if err != nil {
		t.Fatal(err)
	}
	if hello != nil {
		b, _ := json.Marshal(hello)
		c.Write(ctx, websocket.MessageText, b)
	}
	w := &fakeWorker{c: c}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			var q map[string]any
			json.Unmarshal(b, &q)
			if q["type"] != "query" {
				continue
			}
			w.queries.Add(1)
			if ans := answer(q); ans != nil {
				ans["type"], ans["id"] = "result", q["id"]
				out, _ := json.Marshal(ans)
				c.Write(ctx, websocket.MessageText, out)
			}
		}
	})
	t.Cleanup(func() { cancel(); c.CloseNow(); wg.Wait() })
	return w
}

// Without an extension a query fails at once: one that waited for an
// answer would end in timeout, not extension_not_connected, and would hold
// a query until then.
func TestAnalyzeWithoutExtensionFailsFast(t *testing.T) {
	s, _ := startServer(t)
	c := mcpClient(t, s)
	for _, target := range []string{"dom", "page_info", "accessibility"} {
		a := map[string]any{"target": target}
		if target == "dom" {
			a["selector"] = "body"
		}
		out, isErr := callTool(t, c, "analyze", a)
		if !isErr || out["error"] != "extension_not_connected" || !strings.Contains(out["message"].(string), "human") {
			t.Fatalf("%s: %v", target, out)
		}
		if s.queries.Held() != 0 {
			t.Fatalf("%s: the server holds %d queries", target, s.queries.Held())
		}
	}
}

func TestAnalyzeTimesOutAndHoldsNothing(t *testing.T) {
	s, base := startServer(t)
	w := connectWorker(t, base, func(map[string]any) map[string]any { return nil }) // a hung page
	waitReachable(t, s)
	_, err := s.queries.Ask(context.Background(), "dom", 0, nil, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "timeout") || w.queries.Load() != 1 {
		t.Fatalf("%v (queries seen %d)", err, w.queries.Load())
	}
	if s.queries.Held() != 0 {
		t.Fatalf("server holds %d queries", s.queries.Held())
	}
}

func waitReachable(t *testing.T, s *Server) {
	t.Helper()
	eventually(t, "the worker attached", s.queries.Reachable)
}

func TestPollingFallbackOverHTTP(t *testing.T) {
	s, base := startServer(t)
	ext := map[string]string{"Origin": ExtensionOrigin}
	do(t, base, call{method: "GET", path: "/pending-queries", header: ext}) // the worker is polling
	done := make(chan error, 1)
	go func() {
		_, err := s.queries.Ask(context.Background(), "page_info", 0, nil, 5*time.Second)
		done <- err
	}()
	var q []any
	eventually(t, "the query handed to a poll", func() bool {
		_, out := do(t, base, call{method: "GET", path: "/pending-queries", header: ext})
		q, _ = out["queries"].([]any)
		return len(q) > 0
	})
	id := q[0].(map[string]any)["id"].(string)
	code, out := do(t, base, call{method: "POST", path: "/query-results", header: ext,
		body: `{"results":[{"id":"` + id + `","result":{"url":"http://x/"}},{"id":"q-unknown"}]}`})
	if code != 200 || out["accepted"] != float64(1) || out["dropped"] != float64(1) {
		t.Fatalf("%d %v", code, out)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
