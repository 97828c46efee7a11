package security

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// jsonOf builds a realistic JSON payload of about n bytes: a page of user
// records with ids, names, emails, nested addresses and tags.
func jsonOf(n, seed int) string {
	var b strings.Builder
	b.WriteString(`{"page":1,"items":[`)
	for i := 0; b.Len() < n-200; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"User %d","email":"user%d@shop.io","role":"member","created_at":"2026-11-%02dT10:00:00Z",`+
			`"address":{"city":"Lyon","zip":"690%02d"},"tags":["a","b"],"score":%d.5,"active":true,"avatar":null}`,
			seed*1000+i, i, i, i%28+1, i%100, i)
	}
	b.WriteString(`],"total":1000}`)
	return b.String()
}

// fullInput fills every buffer to its capture cap. long makes console
// entries as large as capture allows (4 KB message, 10 arguments of 500 B).
func fullInput(long bool) Input {
	var in Input
	for i := range capture.BodyCap {
		auth := []Auth{AuthPresent, AuthAbsent, AuthUnknown}[i%3]
		in.Bodies = append(in.Bodies, Request{NetworkBody: capture.NetworkBody{
			Method: "POST", URL: fmt.Sprintf("https://api.shop.io/api/users/%d?page=%d", i, i), Status: 200,
			ContentType: "application/json", Page: "https://shop.io/app",
			RequestBody: jsonOf(capture.MaxRequestBody, i), ResponseBody: jsonOf(capture.MaxResponseBody, i),
		}, Auth: auth})
	}
	for i := range capture.NetworkCap {
		u := fmt.Sprintf("https://api.shop.io/api/items/%d?sort=price&q=shoes", i)
		if i%50 == 0 {
			u = fmt.Sprintf("https://api.shop.io/api/data?api_key=%s%d", apiKey, i)
		}
		in.Network = append(in.Network, capture.NetworkEntry{Method: "GET", URL: u, Status: 200, Type: "fetch", Page: "https://shop.io/app"})
	}
	for i := range capture.LogCap {
		e := capture.LogEntry{Level: "log", Source: "https://shop.io/app.js:12:3", Page: "https://shop.io/app",
			Message: fmt.Sprintf("render ProductList with %d items in %d ms, user user%d@shop.io, cart total 42.50 EUR", i, i%40, i)}
		if i%100 == 0 {
			e.Message += " token " + jwt
		}
		if long {
			e.Message = capture.Truncate(strings.Repeat(e.Message+" ", 40), capture.MaxMessage)
			for range capture.MaxArgs {
				e.Args = append(e.Args, capture.Truncate(jsonOf(capture.MaxArg+200, i), capture.MaxArg))
			}
		} else {
			e.Args = []string{`{"id":1,"qty":2}`, "[object Object]"}
		}
		in.Logs = append(in.Logs, e)
	}
	for i := range capture.WSEventCap {
		in.WS = append(in.WS, capture.WSEvent{Event: "message", ID: fmt.Sprint(i % capture.WSConnCap), URL: "wss://rt.shop.io/feed",
			Direction: []string{"incoming", "outgoing"}[i%2], Data: jsonOf(capture.MaxWSData, i)})
	}
	for i := range capture.WSConnCap {
		in.WSConns = append(in.WSConns, capture.WSConnection{ID: fmt.Sprint(i), URL: "wss://rt.shop.io/feed"})
	}
	return in
}

// BenchmarkAuditFullBuffers is a full audit over every buffer at its cap
// (goal < 20 ms).
func BenchmarkAuditFullBuffers(b *testing.B) {
	in := fullInput(false)
	defer cpuPerOp(b)()
	for b.Loop() {
		Audit(in, Options{SeverityMin: Info})
	}
}

// BenchmarkAuditFullBuffersLongLogs is the worst case: every console entry
// at its size cap too.
func BenchmarkAuditFullBuffersLongLogs(b *testing.B) {
	in := fullInput(true)
	defer cpuPerOp(b)()
	for b.Loop() {
		Audit(in, Options{SeverityMin: Info})
	}
}

// cpuPerOp reports the process CPU time per operation next to ns/op: on a
// shared, loaded machine wall time mostly measures the wait for a core.
func cpuPerOp(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestFullBuffersAuditFindsThePlantedIssues(t *testing.T) {
	r := Audit(fullInput(false), Options{SeverityMin: Info})
	got := map[string]int{}
	for _, f := range r.Findings {
		got[f.Rule] += max(1, f.Count)
	}
	if got["secret_in_url"] != 10 || got["jwt_in_log"] != 10 || got["pii_without_auth"] == 0 {
		t.Errorf("%v", got)
	}
}
