package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// fullStore fills every buffer an audit reads to capacity, bodies with
// JSON of a few kilobytes holding personal data.
func fullStore(s *capture.Store) {
	page := "https://shop.io/cart"
	logs := make([]capture.LogEntry, capture.LogCap)
	for i := range logs {
		logs[i] = capture.LogEntry{Level: "log", Message: fmt.Sprintf("render item %d took 3ms for user%d@shop.io", i, i), Page: page}
	}
	s.AddLogs(logs)
	net := make([]capture.NetworkEntry, capture.NetworkCap)
	for i := range net {
		net[i] = capture.NetworkEntry{Method: "GET", URL: fmt.Sprintf("https://api.shop.io/items/%d?page=2", i), Status: 200, DurationMS: 12, Page: page}
	}
	s.AddNetwork(net)
	row := `{"id":1,"name":"Ada","email":"ada@shop.io","phone":"+442071234567","address":{"city":"London"}},`
	body := "[" + strings.Repeat(row, 40) + `{"id":2}]`
	no := false
	bodies := make([]capture.NetworkBody, capture.BodyCap)
	for i := range bodies {
		bodies[i] = capture.NetworkBody{Method: "GET", URL: fmt.Sprintf("https://api.shop.io/users/%d", i), Status: 200,
			ContentType: "application/json", ResponseBody: body, HasAuthHeader: &no, Page: page}
	}
	s.AddBodies(bodies)
	ws := make([]capture.WSEvent, capture.WSEventCap)
	for i := range ws {
		ws[i] = capture.WSEvent{Event: "message", ID: "c1", URL: "wss://api.shop.io/live", Direction: "incoming", Data: `{"price":12.5}`}
	}
	s.AddWSEvents(ws)
}

// BenchmarkAnalyzeSecurityFullBuffers is analyze{target:"security"} over
// full buffers, reading them included (goal: < 20 ms).
func BenchmarkAnalyzeSecurityFullBuffers(b *testing.B) {
	s := New(Config{Version: "bench"})
	fullStore(s.store)
	for b.Loop() {
		if _, err := s.an.analyzeSecurity(context.Background(), args{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyzeAPI is analyze{target:"api"} after full body buffers were
// learned (goal: < 5 ms).
func BenchmarkAnalyzeAPI(b *testing.B) {
	s := New(Config{Version: "bench"})
	fullStore(s.store)
	for b.Loop() {
		if _, err := s.an.analyzeAPI(context.Background(), args{}); err != nil {
			b.Fatal(err)
		}
	}
}
