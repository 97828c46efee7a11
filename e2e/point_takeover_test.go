//go:build e2e

package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Issue 45: what the human pointed at, and who read it, survives a
// takeover. The human points at a failing request on the first owner; the
// owner quits after one AI read it, or is SIGKILLed as soon as the human's
// point is answered; a relay takes the port over, and both AIs find the
// entry whole in observe{what:"pointed"}, with who read it, the one that
// had not read it also at the top of its next observe.
func TestPointedSurvivesATakeover(t *testing.T) {
	for _, how := range []struct {
		name string
		sig  syscall.Signal
	}{{"quit", syscall.SIGTERM}, {"kill", syscall.SIGKILL}} {
		t.Run(how.name, func(t *testing.T) {
			port := freePort(t)
			owner := startOwner(t, port)
			first, second := mcpStdio(t, port, "first-agent"), mcpStdio(t, port, "second-agent")
			post := func(path, body string) {
				t.Helper()
				resp, err := http.Post("http://127.0.0.1:"+strconv.Itoa(port)+path, "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("%s: %d", path, resp.StatusCode)
				}
			}
			post("/network", `{"entries":[{"ts":1700000000000,"method":"POST","url":"http://app.test/api/cart","status":500,"tab":3}]}`)
			post("/network-bodies", `{"bodies":[{"ts":1700000000005,"method":"POST","url":"http://app.test/api/cart","status":500,"response_body":"{\"error\":\"out of stock\"}","tab":3}]}`)
			resp, err := humanPost(t, port, "/api/point", `{"kind":"network","note":"why does the cart fail?",`+
				`"entry":{"ts":"2023-11-14T22:13:20.000Z","method":"POST","url":"http://app.test/api/cart","status":500,"tab":3}}`)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("point: %v %v", resp, err)
			}
			resp.Body.Close()
			file := filepath.Join(restoredPath(t, port), "pointed.json")
			readers := `"read_by":["second-agent","first-agent"]`
			if how.sig == syscall.SIGTERM {
				// One AI reads it before the owner quits: the read goes on too, each reader named once.
				if lines, _ := observe(t, first, map[string]any{"what": "errors"})["human_pointed"].([]any); len(lines) != 1 {
					t.Fatalf("the first owner's session did not get it: %v", lines)
				}
				readers = `"read_by":["first-agent","second-agent"]`
			}
			// Killed the moment the human heard it was sent: it was on disk.
			if err := owner.Process.Signal(how.sig); err != nil {
				t.Fatal(err)
			}
			owner.Wait()
			if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("%s: %v %v", file, fi, err)
			}

			out := aiTries(t, second, "observe", map[string]any{"what": "errors"}) // a relay has taken over
			lines, _ := out["human_pointed"].([]any)
			if len(lines) != 1 || !strings.HasPrefix(lines[0].(string), "the human pointed at: network POST http://app.test/api/cart → 500") ||
				!strings.Contains(lines[0].(string), `their note: "why does the cart fail?"`) {
				t.Fatalf("top of the next observe after the takeover: %v", out)
			}
			list := aiTries(t, first, "observe", map[string]any{"what": "pointed"})
			got := mustJSON(list)
			if list["count"] != 1.0 || !containsAll(got, `"url":"http://app.test/api/cart"`, `"status":500`,
				`"response_body":"{\"error\":\"out of stock\"}"`, `"note":"why does the cart fail?"`,
				readers) {
				t.Fatalf("observe pointed after the takeover: %s", got)
			}
			h := restoredHistory(t, second)
			if h["from_pid"] != float64(owner.Process.Pid) {
				t.Fatalf("the new owner's history is not the old owner's: %v", h)
			}
			t.Logf("%s: the new owner (history from pid %v) serves %s", how.name, h["from_pid"], got)
		})
	}
}

// restoredPath is the history directory of the server on port.
func restoredPath(t *testing.T, port int) string {
	t.Helper()
	h, _ := health(port)["history"].(map[string]any)
	p, _ := h["path"].(string)
	if p == "" {
		t.Fatalf("health names no history directory: %v", h)
	}
	return p
}
