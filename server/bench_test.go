package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/decisions"
)

// logBatch is a realistic batch of 100 console entries.
func logBatch() []byte {
	entries := make([]capture.LogEntry, 100)
	for i := range entries {
		entries[i] = capture.LogEntry{
			TS: capture.Time{Time: time.Now()}, Level: "log", Message: fmt.Sprintf("render list item %d took 3ms", i),
			Args: []string{`{"id":42,"name":"Alice"}`}, Source: "http://localhost:3000/static/js/main.js:120:14",
			TabID: 7, Page: "http://localhost:3000/dashboard",
		}
	}
	b, _ := json.Marshal(map[string]any{"entries": entries})
	return b
}

// BenchmarkIngestLogs measures POST /logs over loopback in batches of 100.
func BenchmarkIngestLogs(b *testing.B) { benchIngest(b, Config{Version: "bench"}) }

func benchIngest(b *testing.B, cfg Config) {
	_, base := startServerWith(b, cfg)
	body := logBatch()
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	b.SetParallelism(2)
	cpu0 := cpuTime()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Post(base+"/logs", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "entries/s")
	// CPU per entry (this process: server and client) holds still when
	// other processes load the machine and entries/s does not.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*100), "cpu-ns/entry")
}

// cpuTime is the CPU time this process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// fillAll puts every buffer at capacity with entries at their size caps:
// the worst case for memory and for reads.
func fillAll(s *Server) {
	fill(s, capture.MaxMessage, capture.MaxStack, capture.MaxResponseBody, capture.MaxWSData)
}

// fillTypical puts every buffer at capacity with entries of typical size.
func fillTypical(s *Server) { fill(s, 120, 600, 2000, 200) }

func fill(s *Server, msg, stack, body, ws int) {
	st := s.Store()
	m, stk := strings.Repeat("m", msg), strings.Repeat("s", stack)
	for i := range capture.LogCap {
		e := capture.LogEntry{Level: "log", Message: m, Args: []string{`{"id":42}`}, Page: "http://localhost:3000/"}
		if i%4 == 0 {
			e.Level, e.Kind, e.Stack, e.Source = "error", "exception", stk, "http://localhost:3000/app.js:10:5"
		}
		st.AddLogs([]capture.LogEntry{e})
	}
	for i := range capture.NetworkCap {
		st.AddNetwork([]capture.NetworkEntry{{Method: "GET", URL: fmt.Sprintf("http://localhost:3000/api/items?page=%d", i), Status: 200 + i%4*100, DurationMS: 12}})
	}
	for range capture.BodyCap {
		st.AddBodies([]capture.NetworkBody{{Method: "POST", URL: "http://localhost:3000/api", Status: 200,
			RequestBody: strings.Repeat("r", min(body, capture.MaxRequestBody)), ResponseBody: strings.Repeat("b", body),
			RequestHeaders: map[string]string{"accept": "application/json"}}})
	}
	for i := range capture.WSEventCap {
		st.AddWSEvents([]capture.WSEvent{{Event: "message", ID: fmt.Sprint(i % capture.WSConnCap), Direction: "incoming", Data: strings.Repeat("w", ws)}})
	}
	for range capture.ActionCap {
		st.AddActions([]capture.Action{{Type: "click", Selector: "#list > li:nth-of-type(3) > button", Text: "Save"}})
	}
}

// BenchmarkObserveFull measures the server's side of an observe call with
// every buffer full of typical entries: a raw JSON-RPC request in, the
// response bytes out, as the stdio and relay transports do. p50 and p99 per
// mode; the /max variants read entries at their size caps.
func BenchmarkObserveFull(b *testing.B) {
	typical, worst := New(Config{Version: "bench"}), New(Config{Version: "bench"})
	fillTypical(typical)
	fillAll(worst)
	cursor := typical.Store().Logs(capture.Query{}).Cursor
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"logs", map[string]any{"what": "logs"}},
		{"errors", map[string]any{"what": "errors", "limit": 10}},
		{"network", map[string]any{"what": "network", "status_min": 400}},
		{"network_bodies", map[string]any{"what": "network_bodies"}},
		{"websocket_events", map[string]any{"what": "websocket_events"}},
		{"websocket_status", map[string]any{"what": "websocket_status"}},
		{"actions", map[string]any{"what": "actions"}},
		{"logs_since_cursor", map[string]any{"what": "logs", "after": cursor}},
		{"health", map[string]any{"what": "health"}},
	} {
		b.Run(c.name, func(b *testing.B) { benchCall(b, typical, c.args) })
	}
	b.Run("logs/max", func(b *testing.B) { benchCall(b, worst, map[string]any{"what": "logs"}) })
	b.Run("network_bodies/max", func(b *testing.B) { benchCall(b, worst, map[string]any{"what": "network_bodies"}) })
}

func benchCall(b *testing.B, s *Server, args map[string]any) {
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "observe", "arguments": args}})
	sess := newSession()
	sess.Initialize()
	ctx := s.MCP().WithContext(context.Background(), sess)
	lat := make([]time.Duration, 0, 1024)
	size := 0
	for b.Loop() {
		t0 := time.Now()
		out, err := json.Marshal(s.MCP().HandleMessage(ctx, raw))
		lat = append(lat, time.Since(t0))
		if err != nil || bytes.Contains(out, []byte(`"isError":true`)) {
			b.Fatalf("%v %s", err, out)
		}
		size = len(out)
	}
	reportPercentiles(b, lat)
	b.ReportMetric(float64(size), "response-bytes")
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(p(0.50), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
}

// BenchmarkNew is a server's start as `gasoline --mcp` makes it before it
// can answer initialize: the audit log's server_start line, the human's
// decisions restored, the token file written, the MCP tools built.
func BenchmarkNew(b *testing.B) {
	dir := b.TempDir()
	cfg := Config{Version: "bench", Log: io.Discard, AuditLog: filepath.Join(dir, "audit.jsonl"),
		StateFile: filepath.Join(dir, "decisions-1.json"), TokenFile: filepath.Join(dir, "human-1.token")}
	held := decisions.State{Revoked: map[string]time.Time{"ws_mode": time.Now()}, PilotBlocked: true}
	if err := decisions.Save(cfg.StateFile, held); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s := New(cfg)
		s.trail.log.Close()
	}
}
