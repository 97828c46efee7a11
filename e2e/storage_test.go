//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/mcp"
)

// storageJWT is the JWT storage.html keeps under auth_token; its
// signature must never reach the AI.
const storageJWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZGEiLCJleHAiOjE4OTM0NTYwMDB9.c2lnbmF0dXJlLXRoYXQtbXVzdC1uZXZlci1sZWFr"

// readStorage calls observe storage and returns its text as the AI reads
// it, and whether it was a tool error.
func readStorage(t testing.TB, c mcpClient, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "observe"
	req.Params.Arguments = map[string]any{"what": "storage"}
	for k, v := range args {
		req.Params.Arguments.(map[string]any)[k] = v
	}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("observe storage: %v", err)
	}
	return res.Content[0].(mcp.TextContent).Text, res.IsError
}

// storageOf decodes a storage answer, failing on a tool error.
func storageOf(t testing.TB, c mcpClient, args map[string]any) (map[string]any, string) {
	t.Helper()
	text, isErr := readStorage(t, c, args)
	if isErr {
		t.Fatalf("observe storage: %s", text)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("not JSON: %s", text)
	}
	return out, text
}

// obj and list walk a decoded answer.
func obj(v any, path ...string) map[string]any {
	m, _ := v.(map[string]any)
	for _, p := range path {
		m, _ = m[p].(map[string]any)
	}
	return m
}

func list(v any, key string) []map[string]any {
	return entries(map[string]any{"entries": obj(v)[key]})
}

// checkShopStorage checks what observe storage answers of storage.html, in
// either browser: the values, the redactions, the cookies' flags and the
// counts; records only with include_values.
func checkShopStorage(t *testing.T, c mcpClient, site string) {
	t.Helper()
	start := time.Now()
	res, text := storageOf(t, c, nil)
	t.Logf("observe storage: %d bytes in %v", len(text), time.Since(start).Round(time.Millisecond))
	for _, secret := range []string{"c2lnbmF0dXJl", "server-secret", "tok_visa", "null"} {
		if strings.Contains(text, secret) {
			t.Errorf("%q in the answer: %s", secret, text)
		}
	}
	if res["origin"] != site || res["url"] != site+"/storage.html" {
		t.Errorf("origin %v url %v", res["origin"], res["url"])
	}
	local := obj(res, "localStorage")
	es := list(local, "entries")
	if local["count"] != float64(3) || len(es) != 3 || local["more"] != nil {
		t.Errorf("localStorage: %s", mustJSON(local))
	}
	if e := find(es, "key", "theme"); e == nil || e["value"] != "dark" || e["size"] != float64(4) {
		t.Errorf("theme: %v", e)
	}
	if e := find(es, "key", "auth_token"); e == nil || e["value"] != "eyJhbG…[redacted]" || e["size"] != float64(len(storageJWT)) {
		t.Errorf("the JWT: %v", e)
	}
	if e := find(es, "key", "cart"); e == nil || !containsAll(e["value"].(string), `"sku":"A1"`, `"qty":2`, `"coupon":"SPRING"`) {
		t.Errorf("the cart: %v", e)
	}
	session := obj(res, "sessionStorage")
	if e := find(list(session, "entries"), "key", "step"); session["count"] != float64(1) || e == nil || e["value"] != "checkout-2" {
		t.Errorf("sessionStorage: %s", mustJSON(session))
	}
	cookies := obj(res, "cookies")
	cs := list(cookies, "entries")
	lang, sid := find(cs, "name", "lang"), find(cs, "name", "sid")
	if cookies["count"] != float64(2) || len(cs) != 2 || lang == nil || sid == nil {
		t.Fatalf("cookies: %s", mustJSON(cookies))
	}
	if lang["value"] != "en-GB" || lang["sameSite"] != "Lax" || lang["httpOnly"] != nil || lang["path"] != "/" || lang["expires"] == nil ||
		lang["domain"] != "127.0.0.1" || lang["size"] != float64(len("lang")+len("en-GB")) {
		t.Errorf("the script's cookie: %v", lang)
	}
	if exp, err := time.Parse(time.RFC3339, lang["expires"].(string)); err != nil || time.Until(exp) < 50*time.Minute || time.Until(exp) > 61*time.Minute {
		t.Errorf("lang expires %v (max-age=3600): %v", lang["expires"], err)
	}
	if sid["value"] != "[redacted]" || sid["httpOnly"] != true || sid["expires"] != nil || sid["size"] != float64(len("sid")+len("server-secret")) {
		t.Errorf("the server's HttpOnly session cookie: %v", sid)
	}
	idb := obj(res, "indexedDB")
	dbs := list(idb, "databases")
	if idb["count"] != float64(1) || len(dbs) != 1 || dbs[0]["name"] != "shop" || dbs[0]["version"] != float64(2) {
		t.Fatalf("indexedDB: %s", mustJSON(idb))
	}
	stores := list(dbs[0], "stores")
	if len(stores) != 1 || stores[0]["name"] != "orders" || stores[0]["keyPath"] != "id" || stores[0]["count"] != float64(3) || stores[0]["records"] != nil {
		t.Errorf("the orders store: %s", mustJSON(stores))
	}
	if caches, _ := res["cacheStorage"].([]any); len(caches) != 1 || caches[0] != "shop-v1" {
		t.Errorf("cacheStorage: %v", res["cacheStorage"])
	}

	res, text = storageOf(t, c, map[string]any{"include_values": true})
	records := list(list(list(obj(res, "indexedDB"), "databases")[0], "stores")[0], "records")
	if len(records) != 3 || strings.Contains(text, "tok_visa") {
		t.Fatalf("records: %s", text)
	}
	if r := records[2]; r["key"] != float64(3) || !containsAll(mustJSON(r["value"]), `"card_token":"[redacted]"`, `"sku":"A1"`, `"total":39`) {
		t.Errorf("the third order: %v", r)
	}
	if r := records[0]; mustJSON(r["value"]) != `{"id":1,"sku":"A1","total":19.5}` {
		t.Errorf("the first order: %v", r)
	}
}

// checkStorageOff: with storage_reads off the AI is refused with
// storage_reads_off and a message naming the human's option, and
// configure cannot turn it on.
func checkStorageOff(t *testing.T, c mcpClient) {
	t.Helper()
	text, isErr := readStorage(t, c, nil)
	if !isErr || !containsAll(text, `"error":"storage_reads_off"`, "human", "options") {
		t.Fatalf("off: %v %s", isErr, text)
	}
	out, isErr, err := callTool(c, "configure", map[string]any{"action": "capture", "settings": map[string]any{"storage_reads": true}})
	if err != nil || !isErr || out["error"] != "forbidden" {
		t.Errorf("configure storage_reads: %v %v", err, out)
	}
	if text, isErr := readStorage(t, c, nil); !isErr || !strings.Contains(text, "storage_reads_off") {
		t.Errorf("after configure: %s", text)
	}
}

// checkStorageAtScale reads storage-big.html: 10,000 keys, a 3 MB value
// and a 50 MB IndexedDB record give an answer within 64 KB that shows the
// start of each list and counts the rest.
func checkStorageAtScale(t *testing.T, c mcpClient) {
	t.Helper()
	start := time.Now()
	res, text := storageOf(t, c, map[string]any{"include_values": true})
	t.Logf("observe storage at scale: %d bytes in %v", len(text), time.Since(start).Round(time.Millisecond))
	if len(text) > 64<<10 || len(text) < 32<<10 {
		t.Errorf("the answer is %d bytes", len(text))
	}
	local := obj(res, "localStorage")
	n := len(list(local, "entries"))
	if local["count"] != float64(10000) || n == 0 || local["more"] != float64(10000-n) {
		t.Errorf("localStorage: count %v, %d shown, more %v", local["count"], n, local["more"])
	}
	draft := find(list(obj(res, "sessionStorage"), "entries"), "key", "draft")
	if draft == nil || draft["size"] != float64(3000000) || draft["cut"] != true || len(draft["value"].(string)) != 2048 {
		t.Errorf("the 3 MB value: %.200s", mustJSON(draft))
	}
	st := list(list(obj(res, "indexedDB"), "databases")[0], "stores")[0]
	recs := list(st, "records")
	if st["count"] != float64(1) || len(recs) != 1 || recs[0]["key"] != "huge" || recs[0]["cut"] != true {
		t.Fatalf("the 50 MB record: %.300s", mustJSON(st))
	}
	if v, _ := recs[0]["value"].(string); len(v) > 2048 || !strings.HasPrefix(v, `"ffff`) {
		t.Errorf("the 50 MB record's value: %d bytes", len(v))
	}
}

// waitStored waits until a fixture page's title says it stored everything.
func (r *rig) waitStored(t *testing.T) {
	t.Helper()
	waitFor(t, 30*time.Second, "the page to store its state", func() bool {
		title, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[string]("document.title"))
		if err != nil {
			return false
		}
		if strings.HasPrefix(title, "failed") {
			t.Fatalf("the page: %s", title)
		}
		return title == "stored"
	})
}

// TestStorageChromium: observe storage in Chromium, as checkShopStorage
// says; off, refused; on again, answered.
func TestStorageChromium(t *testing.T) {
	r := newRig(t, "storage-agent", map[string]any{})
	r.open(t, "/storage.html")
	r.waitStored(t)
	checkShopStorage(t, r.ai, r.site)
	r.b.setCapture(t, map[string]any{"storage_reads": false})
	checkStorageOff(t, r.ai)
	r.b.setCapture(t, map[string]any{"storage_reads": true})
	if res, _ := storageOf(t, r.ai, nil); obj(res, "localStorage")["count"] != float64(3) {
		t.Errorf("on again: %v", res)
	}
}

// TestStorageAtScaleChromium: checkStorageAtScale in Chromium.
func TestStorageAtScaleChromium(t *testing.T) {
	r := newRig(t, "storage-scale-agent", map[string]any{})
	r.open(t, "/storage-big.html")
	r.waitStored(t)
	checkStorageAtScale(t, r.ai)
}
