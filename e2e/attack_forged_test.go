//go:build e2e && attack

// The attacks of issue 52 on the human's word and on secrets in formats
// the rule set missed, against the real binary, with their figures: part
// of `make attack`. The browser's half (a page forging events, driving the
// picker, typing a card) is TestForgedEventsAreNotTheHumans and
// TestCardsXMLAndGraphQLNeverWhole, in Chromium and Firefox.
package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/server"
)

// extensionPost sends body to path on port with the extension's Origin and no token,
// as any process of the user can, and answers the status.
func extensionPost(t *testing.T, port int, path, body string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://127.0.0.1:"+strconv.Itoa(port)+path, strings.NewReader(body))
	req.Header.Set("Origin", server.ExtensionOrigin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestAttackForgedPicks: 300 picks posted to /point without the human's
// token, with the extension's Origin: no human line in the audit (the
// human's own file unchanged), most refused with 429 and counted in
// health, the board every AI session reads holding a person's few.
func TestAttackForgedPicks(t *testing.T) {
	port := freePort(t)
	startOwner(t, port)
	home := filepath.Join(testHome, ".gasoline")
	if resp, err := humanPost(t, port, "/api/pilot/block", `{"blocked":true}`); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the human's block: %v %v", resp, err)
	}
	humanBefore, _ := os.ReadFile(filepath.Join(home, "audit.human.jsonl"))
	codes := map[int]int{}
	t0 := time.Now()
	for i := range 300 {
		el := `{"element":{"selector":"#decoy-` + strconv.Itoa(i) + `","box":{"x":1,"y":1,"width":9,"height":9}},"note":"forged"}`
		codes[extensionPost(t, port, "/point", el)]++
	}
	took := time.Since(t0)
	h := health(port)
	ext, _ := h["extension"].(map[string]any)
	refused, _ := ext["picks_refused"].(float64)
	humanAfter, _ := os.ReadFile(filepath.Join(home, "audit.human.jsonl"))
	main, _ := os.ReadFile(filepath.Join(home, "audit.jsonl"))
	picked, humanPicks := 0, 0
	for _, l := range strings.Split(string(main), "\n") {
		if !strings.Contains(l, `"port":`+strconv.Itoa(port)+`,`) {
			continue
		}
		if strings.Contains(l, `"event":"element_picked"`) && strings.Contains(l, `"source":"extension"`) {
			picked++
		}
		if strings.Contains(l, `"source":"human"`) && strings.Contains(l, "decoy") {
			humanPicks++
		}
	}
	ai := mcpStdio(t, port, "attack-reader")
	board := observe(t, ai, map[string]any{"what": "pointed"})
	if codes[200] > 10 || codes[429] < 290 || int(refused) != codes[429] || humanPicks > 0 || string(humanAfter) != string(humanBefore) ||
		picked != codes[200] || board["count"] != float64(codes[200]) {
		t.Errorf("codes %v, health picks_refused %v, element_picked lines %d, human lines from picks %d, human file changed %v, board %v",
			codes, refused, picked, humanPicks, string(humanAfter) != string(humanBefore), board["count"])
	}
	t.Logf("300 token-less picks in %v: %d taken, %d refused 429 (health picks_refused %v); audit: %d element_picked lines (source extension), %d human lines; the human's file unchanged: %v; the AI's board holds %v",
		took.Round(time.Millisecond), codes[200], codes[429], refused, picked, humanPicks, string(humanAfter) == string(humanBefore), board["count"])
}

// TestAttackSecretFormats: secrets in the formats issue 52 found leaking,
// posted as the extension would (an old extension, or a local process: the
// server is the gate): each is gone from what the AI reads and from the
// history on disk, and the GraphQL query stays readable.
func TestAttackSecretFormats(t *testing.T) {
	port := freePort(t)
	startOwner(t, port)
	S := cardSecrets()
	bodies := []map[string]any{
		{"method": "POST", "url": "http://shop.test/pay", "status": 200, "content_type": "text/plain",
			"request_headers": map[string]string{"content-type": "application/x-www-form-urlencoded"}, "request_body": "card=" + S["card"] + "&exp=12%2F30"},
		{"method": "POST", "url": "http://shop.test/login", "status": 200, "request_headers": map[string]string{"content-type": "application/xml"},
			"request_body": "<login><password><value>" + S["xmlPw"] + "</value></password></login>"},
		{"method": "POST", "url": "http://shop.test/html", "status": 200, "request_headers": map[string]string{"content-type": "text/html"},
			"request_body": "<login><token>" + S["xmlToken"] + "</token></login>"},
		{"method": "GET", "url": "http://shop.test/v1?api_key=" + S["stripe"], "status": 200},
		{"method": "POST", "url": "http://shop.test/graphql", "status": 200, "request_headers": map[string]string{"content-type": "application/json"},
			"request_body": `{"query":"mutation Login($password: String!) { login(password: $password) { token } }","variables":{"password":"` + S["gqlPw"] + `","card":"` + S["gqlCard"] + `"}}`},
	}
	b, _ := json.Marshal(map[string]any{"bodies": bodies})
	codes := []int{extensionPost(t, port, "/network-bodies", string(b))}
	b, _ = json.Marshal(map[string]any{"entries": []map[string]any{{"level": "error", "message": "charging card " + S["cardGrouped"]}}})
	codes = append(codes, extensionPost(t, port, "/logs", string(b)))
	b, _ = json.Marshal(map[string]any{"actions": []map[string]any{
		{"type": "input", "selector": `input[name="card"]`, "input_type": "text", "value": S["card"]},
		{"type": "input", "selector": "#note", "input_type": "text", "value": "paid with " + S["cardGrouped"]}}})
	codes = append(codes, extensionPost(t, port, "/actions", string(b)))
	ai := mcpStdio(t, port, "attack-reader")
	read := map[string]string{}
	for _, what := range []string{"network_bodies", "network", "logs", "actions"} {
		read[what] = mustJSON(observe(t, ai, map[string]any{"what": what}))
	}
	sec := analyze(t, ai, map[string]any{"target": "security", "severity_min": "info"})
	read["security"] = mustJSON(sec)
	var disk strings.Builder
	waitFor(t, 10*time.Second, "the bodies in the history on disk", func() bool {
		disk.Reset()
		filepath.WalkDir(filepath.Join(testHome, ".gasoline", "history-"+strconv.Itoa(port)), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				disk.Write(b)
			}
			return nil
		})
		return strings.Contains(disk.String(), "shop.test/graphql") && strings.Contains(disk.String(), "paid with")
	})
	read["history"] = disk.String()
	leaked := 0
	for where, text := range read {
		if l := leaks(text, S); len(l) > 0 {
			leaked += len(l)
			t.Errorf("%s holds %v whole", where, l)
		}
	}
	readable := strings.Contains(read["network_bodies"], `mutation Login($password: String!) { login(password: $password) { token } }`)
	marked := strings.Contains(read["network_bodies"], "api_key=sk_live_[redacted]") && strings.Contains(read["security"], "api_key=sk_live_[redacted]") &&
		!strings.Contains(read["security"], "[r...")
	if !readable || !marked {
		t.Errorf("GraphQL query readable %v; the key's mark kept whole %v", readable, marked)
	}
	t.Logf("%d secrets in 6 formats posted (%v): %d found whole in observe, the audit or %d bytes of history; GraphQL query readable: %v; api_key=sk_live_[redacted] in observe and the audit: %v",
		len(S), codes, leaked, disk.Len(), readable, marked)
}
