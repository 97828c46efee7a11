package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// mappedSite serves the sourcemap package's minified fixture and its map
// as /dist/app.js and /dist/app.js.map.
func mappedSite(t *testing.T) *httptest.Server {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, "../features/sourcemap/testdata"+strings.TrimPrefix(r.URL.Path, "/dist"))
	}))
	t.Cleanup(site.Close)
	return site
}

// mappedError is a /logs body: an exception thrown in the fixture's bundle,
// then a plain console.log that must not overtake it on the stream.
func mappedError(site string) string {
	u := site + "/dist/app.js"
	return `{"entries":[{"ts":1700000000001,"level":"error","kind":"exception","message":"Uncaught TypeError: x",` +
		`"stack":"TypeError: x\n    at m (` + u + `:1:79)\n    at n (` + u + `:1:119)",` +
		`"source":"` + u + `:1:79","tab":7,"page":"` + site + `/index.html"},` +
		`{"ts":1700000000002,"level":"log","message":"after","tab":7,"page":"` + site + `/index.html"}]}`
}

// Issue 58 row 5: the dashboard's stream carries a console entry's stack
// and source at the original sources, as observe shows them to the AI,
// live and in the backlog of a stream opened later; the entry after it
// keeps its place.
func TestEventStreamShowsOriginalSources(t *testing.T) {
	site := mappedSite(t)
	s, base := startServer(t)
	live := openStream(t, base, s.HumanToken())
	if code, out := do(t, base, call{method: "POST", path: "/logs", body: mappedError(site.URL), header: map[string]string{"Origin": ExtensionOrigin}}); code != 200 {
		t.Fatalf("%d %v", code, out)
	}
	first := live.until(t, "entry", `"kind":"logs"`)
	if !strings.Contains(first, `"stack":"applyCoupon /src/cart.ts:9:35\ncheckout :14:17"`) || !strings.Contains(first, `"source":"/src/cart.ts:9:35"`) {
		t.Errorf("live: %s", first)
	}
	if next := live.until(t, "entry", `"kind":"logs"`); !strings.Contains(next, `"message":"after"`) {
		t.Errorf("the entry after: %s", next)
	}
	later := openStreamBacklog(t, base, s.HumanToken())
	if got := later.until(t, "entry", `"kind":"exception"`); !strings.Contains(got, `"source":"/src/cart.ts:9:35"`) {
		t.Errorf("backlog: %s", got)
	}
}

// Issue 58 row 5: a streamed error names its source as observe does.
func TestStreamedErrorShowsOriginalSource(t *testing.T) {
	site := mappedSite(t)
	s, base := startServer(t)
	c := mcpClient(t, s)
	ch := streamed(c)
	if _, isErr := callTool(t, c, "configure", map[string]any{"action": "streaming", "enabled": true, "throttle_seconds": 1, "events": []any{"errors"}}); isErr {
		t.Fatal("enable")
	}
	if code, out := do(t, base, call{method: "POST", path: "/logs", body: mappedError(site.URL), header: map[string]string{"Origin": ExtensionOrigin}}); code != 200 {
		t.Fatalf("%d %v", code, out)
	}
	n := nextEvent(t, ch)
	if j := mustJSON(n); !strings.Contains(j, `"source":"/src/cart.ts:9:35"`) {
		t.Errorf("notification: %s", j)
	}
}
