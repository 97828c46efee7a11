//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
)

// TestBodiesAsThePageReadsThem: a response body is taken from the page's own
// read (text, json, arrayBuffer, bytes) or, for a blob, a stream, a clone or
// no read at all, from a clone of its own; the page gets what it would get
// without the extension (a bad JSON body still rejects with a SyntaxError),
// and every body reaches the server, cut at its cap.
func TestBodiesAsThePageReadsThem(t *testing.T) {
	r := newRig(t, "bodies-agent", map[string]any{"network_bodies": true})
	r.open(t, "/bodies.html")
	got, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[map[string]any](`runBodies()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	checkBodies(t, r.ai, got)
}

// checkBodies checks what bodies.html's runBodies read (got) and what reached the server.
func checkBodies(t *testing.T, ai *client.Client, got map[string]any) {
	t.Helper()
	want := map[string]any{
		"json": float64(2), "text": "plain text", "buf": "array buffer", "bytes": "some bytes", "blob": "a blob",
		"stream": "a stream", "cloned": "read from a clone", "badjson": "SyntaxError", "big": float64(100000), "utf8": "héllo ☃",
	}
	bodies := map[string]string{
		"json": `{"v":[1,2]}`, "text": "plain text", "buf": "array buffer", "bytes": "some bytes", "blob": "a blob", "stream": "a stream",
		"cloned": "read from a clone", "unread": "never read", "badjson": "not json{", "utf8": "héllo ☃",
	}
	if got["bytes"] == "none" { // a browser without Response.bytes()
		delete(want, "bytes")
		delete(bodies, "bytes")
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("the page read %s as %#v, want %#v", k, got[k], v)
		}
	}
	var res []map[string]any
	byID := func(id string) map[string]any {
		for _, e := range res {
			if u, _ := e["url"].(string); strings.Contains(u, "id="+id+"&") {
				return e
			}
		}
		return nil
	}
	waitFor(t, 10*time.Second, "every body", func() bool {
		res = entries(observe(t, ai, map[string]any{"what": "network_bodies", "url_filter": "/api/body", "limit": 50}))
		return len(res) >= len(bodies)+1
	})
	for id, body := range bodies {
		if e := byID(id); e == nil || e["response_body"] != body || e["truncated"] != nil {
			t.Errorf("body %s: %v, want %q whole", id, e, body)
		}
	}
	if e := byID("big"); e == nil || len(e["response_body"].(string)) != 16*1024 || e["truncated"] != true {
		t.Errorf("big body: not cut at 16 K characters: %v", clipJSON(e, 300))
	}

	// Sizes: the announced length, or the bytes the page read when none was announced.
	net := entries(observe(t, ai, map[string]any{"what": "network", "url_filter": "/api/body", "limit": 50}))
	res = net
	if e := byID("text"); e == nil || e["size"] != float64(len("plain text")) {
		t.Errorf("text's size: %v", e)
	}
	if e := byID("utf8"); e == nil || e["size"] != float64(len("héllo ☃")) {
		t.Errorf("chunked UTF-8 body's size: %v, want %d bytes", e, len("héllo ☃"))
	}
	if e := byID("big"); e == nil || e["size"] != nil {
		t.Errorf("a body cut short has no size: %v", e)
	}
}

// TestBodyNotReadWhenThePageLeaves: a request whose body the page never read
// is still captured when the page leaves before the body's turn comes, with
// its body, or marked truncated where leaving stopped the read.
func TestBodyNotReadWhenThePageLeaves(t *testing.T) {
	r := newRig(t, "leave-agent", map[string]any{"network_bodies": true})
	r.open(t, "/bodies.html")
	r.eval(t, `leave()`)
	waitFor(t, 10*time.Second, "the request of the page left", func() bool {
		return len(entries(observe(t, r.ai, map[string]any{"what": "network", "url_filter": "id=left"}))) == 1
	})
	var body map[string]any
	waitFor(t, 5*time.Second, "its body", func() bool {
		res := entries(observe(t, r.ai, map[string]any{"what": "network_bodies", "url_filter": "id=left"}))
		if len(res) == 1 {
			body = res[0]
		}
		return body != nil
	})
	if body["response_body"] != "left behind" && (body["truncated"] != true || body["response_body"] != nil) {
		t.Errorf("the body of the page left: %v", body)
	}
}

// TestFirefoxBodiesAsThePageReadsThem: the same in Firefox ESR, whose
// Response has its own readers.
func TestFirefoxBodiesAsThePageReadsThem(t *testing.T) {
	r := newFoxRig(t, "ff-bodies-agent", map[string]any{"network_bodies": true})
	r.open(t, "/bodies.html")
	out, err := r.f.eval(r.f.tab, `runBodies().then(JSON.stringify)`)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out.(string)), &got); err != nil {
		t.Fatalf("runBodies: %v (%v)", err, out)
	}
	checkBodies(t, r.ai, got)
}

// TestNoBodiesWhenBodiesAreOff: with network_bodies off, requests reach the
// server as network entries and no body leaves the browser — also those a
// page makes on its first line, which the page script captures whole
// (it does not know the settings yet) and the content script cuts down to
// their network entry.
func TestNoBodiesWhenBodiesAreOff(t *testing.T) {
	r := newRig(t, "no-bodies-agent", map[string]any{"network_bodies": false})
	for _, c := range []struct {
		page string
		run  string
		want map[string]string // URL part → type
	}{
		{"/capture.html", "", map[string]string{"/api/ok?x=1": "fetch", "/api/fail": "fetch", "/api/xhr": "xhr"}},
		{"/bodies.html", "runBodies()", map[string]string{"id=json&": "fetch", "id=text&": "fetch", "id=utf8&": "fetch"}},
	} {
		r.open(t, c.page)
		if c.run != "" {
			if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[map[string]any](c.run, chromedp.EvalAwaitPromise)); err != nil {
				t.Fatal(err)
			}
		}
		waitFor(t, 10*time.Second, c.page+"'s requests at the server, the worker's queue empty", func() bool {
			net := entries(observe(t, r.ai, map[string]any{"what": "network", "limit": 100}))
			for part, typ := range c.want {
				e := findContains(net, "url", part)
				if e == nil || e["type"] != typ || e["status"] == nil {
					return false
				}
			}
			q, err := chromedp.Run(r.b.sw, chromedp.Evaluate[float64](`status().queued`))
			return err == nil && q == 0
		})
	}
	if b := entries(observe(t, r.ai, map[string]any{"what": "network_bodies", "limit": 100})); len(b) != 0 {
		t.Fatalf("bodies reached the server with network_bodies off: %s", clipJSON(b, 400))
	}
}
