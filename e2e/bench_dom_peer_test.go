//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// BenchmarkDOMQueryRoundTripPeer measures the previous release's (0.7.9's)
// DOM query beside ours (BenchmarkDOMQueryRoundTrip's): the same selectors
// of the same page, each in a headless Chromium of its own, from an MCP
// client over stdio through the server and extension and back, ours and
// 0.7.9's in turn (issue 57: ours must take at most 0.4× its time, measured
// in the same run). Its units: ours p50-ms and p99-ms, 0.7.9's peer-p50-ms
// and peer-p99-ms, and ratio-p50 (ours over 0.7.9's).
//
// DOM_BENCH_PEER is its unpacked extension's directory, DOM_BENCH_PEER_SERVER
// its server's binary, set up as the page benchmark's peer is
// (bench_peer_test.go): its server started alone on a port of its own, its
// extension pointed at it, the page's tab its tracked tab (0.7.9 queries
// that tab only).
func BenchmarkDOMQueryRoundTripPeer(b *testing.B) {
	src, bin := os.Getenv("DOM_BENCH_PEER"), os.Getenv("DOM_BENCH_PEER_SERVER")
	if src == "" || bin == "" {
		b.Skip("DOM_BENCH_PEER (the previous release's unpacked extension) and DOM_BENCH_PEER_SERVER (its binary) name the peer")
	}
	ext := copyPeer(b, src)
	s := startPeerServer(b, ext, bin)
	ctx := startChromium(b, ext)
	waitFor(b, 15*time.Second, "the peer's worker's link to its server", s.connected)
	trackTab(b, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(fixtureServer(b)+"/dom.html")); err != nil {
		b.Fatal(err)
	}
	// 0.7.9 is one binary: run without --daemon it is the MCP server over
	// stdio, a bridge to the server on its port.
	ai := mcpStdioOf(b, "bench-agent", bin, s.env(), "--port", strconv.Itoa(s.port), "--state-dir", s.stateDir())
	ours := newRig(b, "bench-agent", map[string]any{})
	ours.open(b, "/dom.html")
	for _, c := range domBenchCases {
		b.Run(c.name, func(b *testing.B) { domRoundTrips(b, ourDOMSide(ours.ai, c), peerDOMSide(ai, c)) })
	}
}

// peerDOMSide is 0.7.9's query of c, through the MCP client ai: its
// answer is a line of summary ("Command dom_…: complete"), then the
// command's JSON, with the query's result in it.
func peerDOMSide(ai mcpClient, c domCase) domSide {
	args := map[string]any{"what": "dom", "selector": c.selector}
	return domSide{prefix: "peer-", call: func() (map[string]any, error) {
		text, isErr, err := callToolText(ai, "analyze", args)
		if err != nil || isErr {
			return nil, fmt.Errorf("analyze: %v %.200s", err, text)
		}
		_, body, _ := strings.Cut(text, "\n")
		var out map[string]any
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			return nil, fmt.Errorf("0.7.9's answer: %v: %.200s", err, text)
		}
		return out, nil
	}, matched: func(out map[string]any) bool {
		res, _ := out["result"].(map[string]any)
		return out["status"] == "complete" && c.matched(res)
	}}
}
