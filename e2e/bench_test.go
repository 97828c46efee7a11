//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"cmp"
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

func percentiles(b *testing.B, lat []time.Duration) { percentilesAs(b, "", lat) }

// percentilesAs reports lat's p50 and p99 in ms, their units' names after
// prefix, and returns the p50.
func percentilesAs(b *testing.B, prefix string, lat []time.Duration) float64 {
	slices.Sort(lat)
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(p(0.5), prefix+"p50-ms")
	b.ReportMetric(p(0.99), prefix+"p99-ms")
	return p(0.5)
}

// BenchmarkDOMQueryRoundTrip measures analyze{target:"dom"} end to end in
// headless Chromium: MCP call over stdio → server → extension socket →
// content script → back. (BenchmarkDOMQueryRoundTripPeer measures it again
// beside the previous release's.)
func BenchmarkDOMQueryRoundTrip(b *testing.B) {
	r := newRig(b, "bench-agent", map[string]any{})
	r.open(b, "/dom.html")
	for _, c := range domBenchCases {
		b.Run(c.name, func(b *testing.B) { domRoundTrips(b, ourDOMSide(r.ai, c)) })
	}
}

// domCase is one of the DOM round trip's queries of dom.html, ours and the
// peer's: a selector, how many elements it matches, and an attribute of the
// first of them.
type domCase struct {
	name, selector string
	matches        int
	attr, value    string
}

var domBenchCases = []domCase{
	{"one_element", "#box", 1, "id", "box"},
	{"fifty_elements", "#list > li", 60, "data-id", "0"},
}

// domQueryMax is how many matched elements a DOM query returns at most,
// ours as 0.7.9's (its DOM_QUERY_MAX_ELEMENTS).
const domQueryMax = 50

// matched reports whether a DOM query's result, ours or 0.7.9's (the same
// fields), matched the case's elements and returned them, up to the cap,
// the first with the case's attribute.
func (c domCase) matched(res map[string]any) bool {
	ms := matches(res)
	if res["matchCount"] != float64(c.matches) || len(ms) != min(c.matches, domQueryMax) {
		return false
	}
	attrs, _ := ms[0]["attributes"].(map[string]any)
	return attrs[c.attr] == c.value
}

// domSide is one server whose DOM query domRoundTrips times.
type domSide struct {
	prefix  string // of its metrics' units: "" for ours
	call    func() (map[string]any, error)
	matched func(map[string]any) bool // whether call's answer is right
}

// ourDOMSide is our server's query of c, through the MCP client ai.
func ourDOMSide(ai mcpClient, c domCase) domSide {
	args := map[string]any{"target": "dom", "selector": c.selector}
	return domSide{call: func() (map[string]any, error) {
		out, isErr, err := callTool(ai, "analyze", args)
		if err == nil && isErr {
			err = fmt.Errorf("tool error: %v", out)
		}
		return out, err
	}, matched: c.matched}
}

// domRoundTrips times b.N round trips of each side's query, the sides in
// turn (each iteration starting with the next side, so that a change in
// the machine's load falls on them alike), and reports each side's
// percentiles and, for two, the first's p50 over the second's (ratio-p50).
// Each answer is checked (outside the time), so that a broken query cannot
// pass as fast. A first query of each before them pays for waking the
// page's script.
func domRoundTrips(b *testing.B, sides ...domSide) {
	check := func(s domSide, out map[string]any, err error) {
		if err != nil || !s.matched(out) {
			b.Fatalf("%s: %v %.300v", cmp.Or(s.prefix, "ours"), err, out)
		}
	}
	for _, s := range sides {
		out, err := s.call()
		check(s, out, err)
	}
	lat := make([][]time.Duration, len(sides))
	for i := 0; b.Loop(); i++ {
		for j := range sides {
			k := (i + j) % len(sides)
			t0 := time.Now()
			out, err := sides[k].call()
			lat[k] = append(lat[k], time.Since(t0))
			check(sides[k], out, err)
		}
	}
	p50 := make([]float64, len(sides))
	for k, s := range sides {
		p50[k] = percentilesAs(b, s.prefix, lat[k])
	}
	if len(sides) == 2 {
		b.ReportMetric(p50[0]/p50[1], "ratio-p50")
	}
}
