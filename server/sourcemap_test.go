package server

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// The adapter: observe errors and logs show an error's stack at its
// original source, densely, with its lines; the settings poll carries the
// human's allow list only from the extension's origin.
func TestObserveErrorsSourceMapped(t *testing.T) {
	var mapReads atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".map") {
			mapReads.Add(1)
		}
		http.ServeFile(w, r, "../features/sourcemap/testdata"+strings.TrimPrefix(r.URL.Path, "/dist"))
	}))
	defer site.Close()
	s, base := startServer(t)
	c := mcpClient(t, s)
	u := site.URL + "/dist/app.js"
	body := `{"entries":[{"ts":1700000000001,"level":"error","kind":"exception","message":"Uncaught TypeError: x",` +
		`"stack":"TypeError: x\n    at m (` + u + `:1:79)\n    at n (` + u + `:1:119)\n    at l (` + u + `:1:516)",` +
		`"source":"` + u + `:1:79","tab":7,"page":"` + site.URL + `/index.html"},` +
		`{"ts":1700000000002,"level":"error","message":"plain","stack":"    at f (https://cdn.example.com/lib.js:1:2)\n    at g (https://cdn.example.com/lib.js:3:4)",` +
		`"source":"https://cdn.example.com/lib.js:9:9","tab":7,"page":"` + site.URL + `/index.html"}]}`
	if code, out := do(t, base, call{method: "POST", path: "/logs", body: body, header: map[string]string{"Origin": ExtensionOrigin}}); code != 200 {
		t.Fatalf("%d %v", code, out)
	}
	errs, isErr := callTool(t, c, "observe", map[string]any{"what": "errors"})
	es, _ := errs["entries"].([]any)
	if isErr || len(es) != 2 {
		t.Fatalf("%v", errs)
	}
	plain, ex := es[0].(map[string]any), es[1].(map[string]any)
	if ex["stack"] != "applyCoupon /src/cart.ts:9:35\ncheckout :14:17\nonCheckoutClick /src/main.ts:9:3" ||
		!strings.Contains(ex["code"].(string), "\n9: const rate = cart.coupons[code].rate;\n") || ex["source"] != nil || ex["level"] != nil {
		t.Errorf("exception: %v", ex)
	}
	// Not the page's origin, not allowed: as the browser gave it, the source kept.
	if plain["stack"] != "f https://cdn.example.com/lib.js:1:2\ng :3:4" || plain["source"] != "https://cdn.example.com/lib.js:9:9" || plain["code"] != nil {
		t.Errorf("plain: %v", plain)
	}
	logs, _ := callTool(t, c, "observe", map[string]any{"what": "logs"})
	if l := mustJSON(logs); !strings.Contains(l, "applyCoupon /src/cart.ts:9:35") || !strings.Contains(l, `"level":"error"`) {
		t.Errorf("logs: %s", l)
	}
	h, _ := callTool(t, c, "observe", map[string]any{"what": "health"})
	sm, _ := h["source_maps"].(map[string]any)
	if sm["maps"] != float64(1) || !strings.Contains(mustJSON(sm["failed"]), "https://cdn.example.com is not allowed") || mapReads.Load() != 1 {
		t.Errorf("health source_maps: %v (map read %d times)", sm, mapReads.Load())
	}

	// verify and diff say where each error was thrown, at its source.
	callTool(t, c, "analyze", map[string]any{"target": "diff", "action": "capture", "name": "base"})
	d, _ := callTool(t, c, "analyze", map[string]any{"target": "diff", "action": "compare", "name": "base"})
	if !strings.Contains(mustJSON(d), `"at":"applyCoupon /src/cart.ts:9:35"`) {
		t.Errorf("diff: %s", mustJSON(d))
	}
	v, _ := callTool(t, c, "analyze", map[string]any{"target": "verify", "action": "start"})
	if !strings.Contains(mustJSON(v), `"at":"applyCoupon /src/cart.ts:9:35"`) {
		t.Errorf("verify: %s", mustJSON(v))
	}

	// SARIF places a finding at a console call site at its original source.
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlX3ZhbHVlX2hlcmU"
	body = `{"entries":[{"ts":1700000000003,"level":"error","kind":"exception","message":"Uncaught Error: token ` + jwt + `",` +
		`"source":"` + u + `:1:79","tab":7,"page":"` + site.URL + `/index.html"}]}`
	if code, out := do(t, base, call{method: "POST", path: "/logs", body: body, header: map[string]string{"Origin": ExtensionOrigin}}); code != 200 {
		t.Fatalf("%d %v", code, out)
	}
	callTool(t, c, "analyze", map[string]any{"target": "security"})
	doc, _ := callTool(t, c, "generate", map[string]any{"format": "sarif"})
	if j := mustJSON(doc); !strings.Contains(j, `"uri":"`+site.URL+`/src/cart.ts"`) || !strings.Contains(j, `"startLine":9`) {
		t.Errorf("sarif: %s", j)
	}

	// The allow list: believed from the extension only.
	do(t, base, call{method: "POST", path: "/settings?sourcemap_origins=https://cdn.example.com"})
	if a := s.maps.Allowed(); len(a) != 0 {
		t.Errorf("a caller without the extension's origin set the allow list: %v", a)
	}
	do(t, base, call{method: "POST", path: "/settings?pilot=false&sourcemap_origins=https://cdn.example.com%20nonsense", header: map[string]string{"Origin": ExtensionOrigin}})
	if a := s.maps.Allowed(); len(a) != 1 || a[0] != "https://cdn.example.com" {
		t.Errorf("allow list: %v", a)
	}
	if _, isErr := callTool(t, c, "configure", map[string]any{"action": "capture", "settings": map[string]any{"sourcemap_origins": "https://x.test"}}); !isErr {
		t.Error("configure accepted sourcemap_origins")
	}
}

// Each change of the human's allow list is one audit line; the same list
// reported again is none.
func TestMapOriginsChangeIsAudited(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	_, base := startServerWith(t, Config{Version: "test", AuditLog: path})
	ext := map[string]string{"Origin": ExtensionOrigin}
	for _, q := range []string{"https://a.test", "https://a.test", "https://a.test%20https://b.test", ""} {
		do(t, base, call{method: "POST", path: "/settings?sourcemap_origins=" + q, header: ext})
	}
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), `"event":"sourcemap_origins_changed"`); n != 3 ||
		!strings.Contains(string(b), `"to":["https://a.test","https://b.test"],"source":"human"`) {
		t.Errorf("%d changes audited:\n%s", n, b)
	}
}
