package server

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/gasoline-dev/gasoline/features/capture"
)

const firefoxUA = "Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0"

// A Firefox install's origin gets nothing until the human accepts it with
// the token; neither a call without the token nor one from a page can; the
// answer outlives the server; a refusal refuses again without a new prompt.
func TestUnknownExtensionOriginWaitsForTheHuman(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Version: "test", AuditLog: filepath.Join(dir, "audit.jsonl"), StateFile: filepath.Join(dir, "decisions.json")}
	s, base := startServerWith(t, cfg)
	const fx = "moz-extension://6f1d3c2a-9b7e-4c55-8a10-3d2f0e4b7c91"
	ext := map[string]string{"Origin": fx, "User-Agent": firefoxUA}
	logs := call{method: "POST", path: "/logs", body: `{"entries":[{"level":"error","message":"from firefox"}]}`, header: ext}
	for range 3 {
		if code, out := do(t, base, logs); code != 403 || out["error"] != "origin_not_accepted" {
			t.Fatalf("before the human: %d %v", code, out)
		}
	}
	if n := s.Store().Logs(capture.Query{}).Total; n != 0 {
		t.Fatalf("%d logs taken from an origin nobody accepted", n)
	}
	_, view := do(t, base, call{method: "GET", path: "/api/origins"})
	if got := mustJSON(view["pending"]); !strings.Contains(got, fx) || !strings.Contains(got, `"browser":"Firefox 153"`) || strings.Count(got, "origin") != 1 {
		t.Fatalf("pending: %s", got)
	}
	if h := s.Health(); h.Origins == nil || len(h.Origins.Pending) != 1 {
		t.Fatalf("health does not show the waiting origin: %+v", h.Origins)
	}
	accept := `{"origin":"` + fx + `","accept":true}`
	if code, out := do(t, base, call{method: "POST", path: "/api/origins/answer", body: accept}); code != 401 || out["error"] != "human_token_required" {
		t.Fatalf("accepted without the token: %d %v", code, out)
	}
	if code, _ := do(t, base, call{method: "POST", path: "/api/origins/answer", body: accept, header: map[string]string{"Origin": fx, TokenHeader: s.HumanToken()}}); code != 403 {
		t.Fatalf("the waiting extension accepted itself: %d", code)
	}
	if code, _ := do(t, base, call{method: "POST", path: "/api/origins/answer", body: `{"origin":"http://evil.example","accept":true}`, header: asHuman(s)}); code != 400 {
		t.Fatalf("a web origin accepted: %d", code)
	}
	if code, out := do(t, base, call{method: "POST", path: "/api/origins/answer", body: accept, header: asHuman(s)}); code != 200 || len(out["pending"].([]any)) != 0 {
		t.Fatalf("accept: %d %v", code, out)
	}
	if code, out := do(t, base, logs); code != 200 {
		t.Fatalf("after the human accepted: %d %v", code, out)
	}
	if code, _ := do(t, base, call{method: "GET", path: "/pending-queries?pilot=false", header: ext}); code != 200 {
		t.Fatalf("queries: %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws/extension",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {fx}}})
	if err != nil {
		t.Fatalf("the accepted extension's socket: %v", err)
	}
	c.CloseNow()
	stopServer(t, s)

	second, base2 := startServerWith(t, cfg)
	if got := second.Health().Restored; got != "1 extension origin(s) accepted" {
		t.Fatalf("restored %q", got)
	}
	if code, out := do(t, base2, logs); code != 200 {
		t.Fatalf("the accepted origin was forgotten: %d %v", code, out)
	}
	if code, _ := do(t, base2, call{method: "POST", path: "/api/origins/answer", body: `{"origin":"` + fx + `","accept":false}`, header: asHuman(second)}); code != 200 {
		t.Fatal("refuse")
	}
	if code, out := do(t, base2, logs); code != 403 || !strings.Contains(fmt.Sprint(out["message"]), "refused") {
		t.Fatalf("after the refusal: %d %v", code, out)
	}
	if v := second.origins.View(); len(v.Pending) != 0 {
		t.Fatalf("a refused origin prompts again: %+v", v)
	}
	var events []string
	for _, l := range readAudit(t, cfg.AuditLog) {
		if e := l["event"].(string); strings.HasPrefix(e, "origin_") {
			events = append(events, e)
		}
	}
	if got := strings.Join(events, ","); got != "origin_pending,origin_accepted,origin_refused" {
		t.Fatalf("audit: %s", got)
	}
}

// Issue 41: eight forged moz-extension origins, then a real Firefox
// install: it is refused until the human answers, and it is in the list
// the human answers from; the forged ones cost the audit no more lines
// than the list holds.
func TestRealOriginListedAfterForgedOnes(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Version: "test", AuditLog: filepath.Join(dir, "audit.jsonl"), StateFile: filepath.Join(dir, "decisions.json")}
	s, base := startServerWith(t, cfg)
	for i := range 50 {
		forged := fmt.Sprintf("moz-extension://00000000-0000-0000-0000-%012d", i)
		do(t, base, call{method: "POST", path: "/logs", body: `{"entries":[]}`, header: map[string]string{"Origin": forged, "User-Agent": "curl/8"}})
	}
	const fx = "moz-extension://6f1d3c2a-9b7e-4c55-8a10-3d2f0e4b7c91"
	if code, out := do(t, base, call{method: "POST", path: "/logs", body: `{"entries":[]}`, header: map[string]string{"Origin": fx, "User-Agent": firefoxUA}}); code != 403 {
		t.Fatalf("the real one: %d %v", code, out)
	}
	_, view := do(t, base, call{method: "GET", path: "/api/origins"})
	if got := mustJSON(view["pending"]); !strings.Contains(got, fx) {
		t.Fatalf("the real one is not listed: %s", got)
	}
	if h := s.Health(); h.Origins == nil || h.Origins.Evicted != 50+1-8 {
		t.Fatalf("health: %+v", h.Origins)
	}
	pending := 0
	for _, l := range readAudit(t, cfg.AuditLog) {
		if l["event"] == "origin_pending" {
			pending++
		}
	}
	if pending != 8 {
		t.Fatalf("%d origin_pending audit lines for a flood", pending)
	}
}
