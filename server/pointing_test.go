package server

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/pointing"
)

// The human points at a failing request from the dashboard: a streaming
// session is notified with the URL, status, bodies and note; another finds
// it at the top of its next observe, once, and in observe{what:"pointed"};
// the dashboard's state then names the reader.
func TestPointedRequestReachesEverySession(t *testing.T) {
	s, base := startServer(t)
	net := `{"entries":[{"ts":1700000000000,"method":"POST","url":"http://app.test/api/cart","status":500,"tab":3,"page":"http://app.test/"}]}`
	body := `{"bodies":[{"ts":1700000000005,"method":"POST","url":"http://app.test/api/cart","status":500,"request_body":"{\"sku\":7}","response_body":"{\"error\":\"out of stock\"}","tab":3}]}`
	for path, b := range map[string]string{"/network": net, "/network-bodies": body} {
		if code, out := do(t, base, call{method: "POST", path: path, body: b}); code != 200 {
			t.Fatalf("%s: %d %v", path, code, out)
		}
	}
	streamer, reader := clientNamed(t, s, "claude-code"), clientNamed(t, s, "cursor")
	notes := streamed(streamer)
	if _, isErr := callTool(t, streamer, "configure", map[string]any{"action": "streaming", "enabled": true}); isErr {
		t.Fatal("streaming not enabled")
	}
	row := `{"ts":"2023-11-14T22:13:20.000Z","method":"POST","url":"http://app.test/api/cart","status":500,"tab":3}`
	point := `{"kind":"network","entry":` + row + `,"note":"why does the cart fail?"}`
	if code, out := do(t, base, call{method: "POST", path: "/api/point", body: point}); code != 401 || out["error"] != "human_token_required" {
		t.Fatalf("without the token: %d %v", code, out)
	}
	code, out := do(t, base, call{method: "POST", path: "/api/point", body: point, header: asHuman(s)})
	if code != 200 || out["streamed"] != 1.0 {
		t.Fatalf("point: %d %v", code, out)
	}
	n := nextEvent(t, notes)
	got := mustJSON(n)
	for _, want := range []string{`"category":"pointed"`, `"url":"http://app.test/api/cart"`, `"status":500`,
		`"request_body":"{\"sku\":7}"`, `"response_body":"{\"error\":\"out of stock\"}"`, `"note":"why does the cart fail?"`} {
		if !strings.Contains(got, want) {
			t.Errorf("notification lacks %s: %s", want, got)
		}
	}

	res, _ := callTool(t, reader, "observe", map[string]any{"what": "logs"})
	lines, _ := res["human_pointed"].([]any)
	if len(lines) != 1 || !strings.HasPrefix(lines[0].(string), "the human pointed at: network POST http://app.test/api/cart → 500") ||
		!strings.Contains(lines[0].(string), "why does the cart fail?") {
		t.Fatalf("top of the next observe: %v", res)
	}
	if res, _ = callTool(t, reader, "observe", map[string]any{"what": "logs"}); res["human_pointed"] != nil {
		t.Fatalf("read twice: %v", res)
	}
	res, _ = callTool(t, reader, "observe", map[string]any{"what": "pointed"})
	list := mustJSON(res)
	if res["count"] != 1.0 || !strings.Contains(list, `"response_body":"{\"error\":\"out of stock\"}"`) ||
		!strings.Contains(list, `"note":"why does the cart fail?"`) || strings.Contains(list, "null") {
		t.Fatalf("pointed: %s", list)
	}
	st := s.pointed.state()
	if st.Newest == nil || strings.Join(st.Newest.ReadBy, ",") != "cursor" {
		t.Fatalf("state: %+v", st.Newest)
	}

	// A row the server no longer holds is refused.
	gone := `{"kind":"network","entry":{"ts":"2023-11-14T22:13:21.000Z","method":"GET","url":"http://app.test/x"}}`
	if code, out := do(t, base, call{method: "POST", path: "/api/point", body: gone, header: asHuman(s)}); code != 404 || out["error"] != "not_found" {
		t.Fatalf("gone: %d %v", code, out)
	}
}

// The element route is the extension's: no Origin, no point.
func TestPointedElementIsTheExtensions(t *testing.T) {
	s, base := startServer(t)
	el := `{"element":{"selector":"#buy","text":"Buy now","box":{"x":10,"y":20,"width":80,"height":30},"styles":{"display":"flex"}},"note":"misaligned"}`
	if code, out := do(t, base, call{method: "POST", path: "/point", body: el}); code != 403 {
		t.Fatalf("without the extension's Origin: %d %v", code, out)
	}
	code, out := do(t, base, call{method: "POST", path: "/point", body: el, header: map[string]string{"Origin": ExtensionOrigin}})
	if code != 200 {
		t.Fatalf("point: %d %v", code, out)
	}
	c := mcpClient(t, s)
	res, _ := callTool(t, c, "observe", map[string]any{"what": "pointed"})
	var got struct {
		Entries []struct {
			Kind  string `json:"kind"`
			Note  string `json:"note"`
			Entry struct {
				Selector string             `json:"selector"`
				Box      map[string]float64 `json:"box"`
			} `json:"entry"`
		} `json:"entries"`
	}
	b, _ := json.Marshal(res)
	_ = json.Unmarshal(b, &got)
	if len(got.Entries) != 1 || got.Entries[0].Kind != "element" || got.Entries[0].Entry.Selector != "#buy" ||
		got.Entries[0].Entry.Box["width"] != 80 || got.Entries[0].Note != "misaligned" {
		t.Fatalf("pointed: %s", b)
	}
}

// Issue 58 row 13: the board is cleared by the AI (configure clear
// pointed) and by the human (POST /api/point/clear, with the token); a
// new session then reads nothing old, and the dashboards hear it.
func TestPointedBoardCleared(t *testing.T) {
	s, base := startServer(t)
	post(t, base, "/logs", `{"entries":[{"ts":1700000000000,"level":"error","message":"boom"}]}`)
	point := `{"kind":"error","entry":{"ts":"2023-11-14T22:13:20.000Z","level":"error","message":"boom"}}`
	sseHuman := openStream(t, base, s.HumanToken())
	for i, clear := range []func(){
		func() {
			out, isErr := callTool(t, clientNamed(t, s, "newcomer-ai"), "configure", map[string]any{"action": "clear", "buffer": "pointed"})
			if isErr || mustJSON(out) != `{"cleared":"pointed","entries":1}` {
				t.Fatalf("configure: %v", out)
			}
		},
		func() {
			if code, _ := do(t, base, call{method: "POST", path: "/api/point/clear"}); code != 401 {
				t.Fatalf("without the token: %d", code)
			}
			if code, out := do(t, base, call{method: "POST", path: "/api/point/clear", header: asHuman(s)}); code != 200 || out["entries"] != 1.0 {
				t.Fatalf("human: %d %v", code, out)
			}
		},
	} {
		if code, out := do(t, base, call{method: "POST", path: "/api/point", body: point, header: asHuman(s)}); code != 200 {
			t.Fatalf("point: %d %v", code, out)
		}
		if res, _ := callTool(t, clientNamed(t, s, "newcomer-ai"), "observe", map[string]any{"what": "logs"}); res["human_pointed"] == nil {
			t.Fatalf("%d: before the clear: %v", i, res)
		}
		clear()
		sseHuman.until(t, "pointed", `{}`)
		if res, _ := callTool(t, clientNamed(t, s, "newcomer-ai"), "observe", map[string]any{"what": "logs"}); res["human_pointed"] != nil {
			t.Fatalf("%d: a new session after the clear: %v", i, res)
		}
	}
}

// A local process can post picks with the extension's Origin and no token:
// they are the extension's lines, never the human's, and past a person's
// pace they are refused (429) and counted in health, so 300 of them neither
// fill the board every AI session reads nor touch the human's audit file.
func TestPickFloodIsTheExtensionsAndPaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	s, base := startServerWith(t, Config{Version: "test", AuditLog: path})
	do(t, base, call{method: "POST", path: "/api/pilot/block", body: `{"blocked":true}`, header: asHuman(s)})
	el := `{"element":{"selector":"#decoy","box":{"x":1,"y":1,"width":9,"height":9}},"note":"forged"}`
	ok, refused := 0, 0
	for range 300 {
		switch code, out := do(t, base, call{method: "POST", path: "/point", body: el, header: map[string]string{"Origin": ExtensionOrigin}}); {
		case code == 200:
			ok++
		case code == 429 && out["error"] == "rate_limited":
			refused++
		default:
			t.Fatalf("pick: %d %v", code, out)
		}
	}
	if ok > pointing.PickBurst+pointing.PicksPerSecond*2 || refused < 290 || s.Health().Extension.PicksRefused != int64(refused) {
		t.Fatalf("%d taken, %d refused, health counts %d", ok, refused, s.Health().Extension.PicksRefused)
	}
	for _, l := range readAudit(t, path) {
		if l["source"] == "human" && l["event"] != "pilot_blocked" {
			t.Fatalf("a human line from a pick: %v", l)
		}
	}
	if kept := readAudit(t, audit.HumanPath(path)); len(kept) != 1 || kept[0]["event"] != "pilot_blocked" {
		t.Fatalf("the human's file: %v", kept)
	}
	picked := 0
	for _, l := range readAudit(t, path) {
		if l["event"] == "element_picked" && l["source"] == "extension" {
			picked++
		}
	}
	if picked != ok {
		t.Fatalf("%d element_picked lines for %d picks", picked, ok)
	}
}
