//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"

// BenchmarkMCPInitialize measures a cold `gasoline --mcp` from process start
// to its initialize answer on stdout, owning the port in-process.
func BenchmarkMCPInitialize(b *testing.B) {
	var lat []time.Duration
	for b.Loop() {
		lat = append(lat, timeInitialize(b, freePort(b)))
	}
	percentiles(b, lat)
}

// BenchmarkRelayInitialize is the same through a relay to a running server.
func BenchmarkRelayInitialize(b *testing.B) {
	port := freePort(b)
	owner := exec.Command(binPath, "--headless", "--port", strconv.Itoa(port))
	if err := owner.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { owner.Process.Kill(); owner.Wait() }()
	waitFor(b, 5*time.Second, "owner", func() bool { return health(port) != nil })
	var lat []time.Duration
	for b.Loop() {
		lat = append(lat, timeInitialize(b, port))
	}
	percentiles(b, lat)
}

// timeInitialize starts `gasoline --mcp` and times its initialize answer.
func timeInitialize(b *testing.B, port int) time.Duration {
	cmd := exec.Command(binPath, "--mcp", "--port", strconv.Itoa(port))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	io.WriteString(stdin, initializeRequest)
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	d := time.Since(t0)
	if err != nil || !bytes.Contains(line, []byte(`"serverInfo"`)) {
		b.Fatalf("initialize: %v %s", err, line)
	}
	stdin.Close()
	cmd.Wait()
	return d
}

// BenchmarkResidentMemory fills every buffer of a `gasoline --headless` with
// entries at their size caps over HTTP and reports the process's RSS.
func BenchmarkResidentMemory(b *testing.B) {
	port := freePort(b)
	cmd := exec.Command(binPath, "--headless", "--port", strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	waitFor(b, 5*time.Second, "server", func() bool { return health(port) != nil })
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	post := func(path string, v any) {
		body, _ := json.Marshal(v)
		resp, err := http.Post(base+path, "application/json", bytes.NewReader(body))
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("%s: %v %v", path, err, resp)
		}
		resp.Body.Close()
	}
	// Twice round each ring, so every slot has been overwritten once.
	for round := range 2 {
		x := func(n int) string { return strings.Repeat(string(rune('a'+round)), n) }
		for range capture.LogCap / 100 {
			var batch []capture.LogEntry
			for range 100 {
				batch = append(batch, capture.LogEntry{Level: "error", Message: x(capture.MaxMessage), Stack: x(capture.MaxStack),
					Args: slices.Repeat([]string{x(capture.MaxArg)}, capture.MaxArgs), Page: "http://localhost/" + x(1000)})
			}
			post("/logs", map[string]any{"entries": batch})
		}
		for range capture.NetworkCap {
			post("/network", map[string]any{"entries": []capture.NetworkEntry{{Method: "GET", URL: "http://localhost/" + x(capture.MaxURL-20), Status: 200}}})
		}
		for range capture.BodyCap {
			post("/network-bodies", map[string]any{"bodies": []capture.NetworkBody{{Method: "POST", URL: "http://localhost/" + x(1000), Status: 200,
				RequestBody: x(capture.MaxRequestBody), ResponseBody: x(capture.MaxResponseBody)}}})
		}
		for i := range capture.WSEventCap {
			post("/websocket-events", map[string]any{"events": []capture.WSEvent{{Event: "message", ID: fmt.Sprint(i), Direction: "incoming", Data: x(capture.MaxWSData)}}})
		}
		for range capture.ActionCap {
			post("/actions", map[string]any{"actions": []capture.Action{{Type: "click", Selector: x(500), Text: x(capture.MaxText)}}})
		}
	}
	var rss float64
	for b.Loop() {
		rss = residentMB(b, cmd.Process.Pid)
	}
	b.ReportMetric(rss, "MB-resident")
}

func residentMB(b *testing.B, pid int) float64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

func percentiles(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(p(0.5), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
}

// BenchmarkDOMQueryRoundTrip measures analyze{target:"dom"} end to end in
// headless Chromium: MCP call over stdio → server → extension socket →
// content script → back.
func BenchmarkDOMQueryRoundTrip(b *testing.B) {
	r := newRig(b, "bench-agent", map[string]any{})
	r.open(b, "/dom.html")
	for _, c := range []struct {
		name string
		args map[string]any
		want float64
	}{
		{"one_element", map[string]any{"target": "dom", "selector": "#box"}, 1},
		{"fifty_elements", map[string]any{"target": "dom", "selector": "#list > li"}, 60},
	} {
		b.Run(c.name, func(b *testing.B) {
			analyze(b, r.ai, c.args) // the first query pays for waking the page's script
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				out, isErr, err := callTool(r.ai, "analyze", c.args)
				lat = append(lat, time.Since(t0))
				if err != nil || isErr || out["matchCount"] != c.want {
					b.Fatalf("%v %v", err, out)
				}
			}
			percentiles(b, lat)
		})
	}
}
