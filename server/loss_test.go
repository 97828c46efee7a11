package server

import (
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// A gap in a page's sequence numbers is a loss that health and the observe
// result over it report; a new document starting again at 1 is not; the
// stored entries keep no sequence, and entries without one (an older
// extension) are stored as before.
func TestSequenceGapsReachHealthAndObserve(t *testing.T) {
	s, base := startServer(t)
	ext := map[string]string{"Origin": ExtensionOrigin}
	post := func(path, body string) {
		t.Helper()
		if code, out := do(t, base, call{method: "POST", path: path, body: body, header: ext}); code != 200 {
			t.Fatalf("POST %s: %d %v", path, code, out)
		}
	}
	post("/logs", `{"entries":[
		{"ts":1764277443000,"level":"error","message":"m1","tab":5,"dc":"d1","sq":1},
		{"ts":1764277443100,"level":"error","message":"m2","tab":5,"dc":"d1","sq":2},
		{"ts":1764277444200,"level":"error","message":"m15","tab":5,"dc":"d1","sq":15},
		{"ts":1764277444300,"level":"error","message":"n1","tab":5,"dc":"d2","sq":1},
		{"ts":1764277444400,"level":"error","message":"old","tab":5}]}`)
	post("/network", `{"entries":[{"ts":1764277444500,"url":"http://x.test/","method":"GET","status":200,"tab":5,"dc":"d2","sq":1}]}`)
	h := s.Health()
	if h.Lost == nil || h.Lost.Total != 12 || len(h.Lost.Recent) != 1 ||
		h.Lost.Recent[0] != "12 console entries lost on tab 5 between 21:04:03Z and 21:04:04Z" {
		t.Fatalf("health lost: %+v", h.Lost)
	}
	c := mcpClient(t, s)
	logs, _ := callTool(t, c, "observe", map[string]any{"what": "logs"})
	if got := mustJSON(logs["lost"]); got != `["12 console entries lost on tab 5 between 21:04:03Z and 21:04:04Z"]` {
		t.Fatalf("observe logs lost = %s", got)
	}
	if j := mustJSON(logs["entries"]); strings.Contains(j, `"sq"`) || strings.Contains(j, `"dc"`) || !strings.Contains(j, `"old"`) {
		t.Fatalf("stored entries: %s", j)
	}
	if net, _ := callTool(t, c, "observe", map[string]any{"what": "network"}); net["lost"] != nil {
		t.Fatalf("network reports a loss: %v", net["lost"])
	}
	health, _ := callTool(t, c, "observe", map[string]any{"what": "health"})
	if !strings.Contains(mustJSON(health["lost"]), `"total":12`) {
		t.Fatalf("observe health lost: %v", health["lost"])
	}
}

// An action keeps its place in its page's sequence past ingest (never shown):
// a generated test orders actions of one millisecond by it.
func TestActionsKeepTheirPlace(t *testing.T) {
	s, base := startServer(t)
	body := `{"actions":[
		{"ts":1764277443000,"type":"click","selector":"#send","text":"Send","tab":5,"dc":"d1","sq":7},
		{"ts":1764277443000,"type":"input","selector":"#msg","value":"hi","tab":5,"dc":"d1","sq":6}]}`
	if code, out := do(t, base, call{method: "POST", path: "/actions", body: body, header: map[string]string{"Origin": ExtensionOrigin}}); code != 200 {
		t.Fatalf("POST /actions: %d %v", code, out)
	}
	as := s.store.Actions(capture.Query{}).Entries // newest first
	if len(as) != 2 || as[0].Order != (capture.Place{Doc: "d1", Seq: 6}) || as[1].Order != (capture.Place{Doc: "d1", Seq: 7}) || as[0].Seq != 0 {
		t.Fatalf("stored actions: %+v", as)
	}
	if j := mustJSON(as); strings.Contains(j, `"sq"`) || strings.Contains(j, `"dc"`) || strings.Contains(j, "Order") {
		t.Fatalf("an action shows its place: %s", j)
	}
}
