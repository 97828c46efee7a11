package server

import (
	"strings"
	"testing"
)

// observe storage asks the extension with include_values and the tab,
// redacts and caps what it answers again whatever it sent, and passes the
// human's storage_reads_off on with its code.
func TestObserveStorageThroughTheSocket(t *testing.T) {
	s, base := startServer(t)
	c := mcpClient(t, s)
	var asked []map[string]any
	connectWorker(t, base, func(q map[string]any) map[string]any {
		asked = append(asked, q)
		if q["tab"] == float64(9) {
			return map[string]any{"error": map[string]any{"code": "storage_reads_off", "message": "The human turned storage reads off in the Gasoline options"}}
		}
		return map[string]any{"tab": 4, "url": "http://app.test/?sid=1", "result": map[string]any{
			"origin": "http://app.test",
			"localStorage": map[string]any{"count": 2, "entries": []any{
				map[string]any{"key": "theme", "value": "dark", "size": 4},
				map[string]any{"key": "session_token", "value": "plain-from-an-old-extension", "size": 27},
				map[string]any{"key": "blob", "value": strings.Repeat("b", 5000), "size": 5000},
			}},
			"cookies": map[string]any{"count": 1, "entries": []any{map[string]any{"name": "sid", "value": "abc", "domain": "app.test", "path": "/", "httpOnly": true}}},
		}}
	})
	waitReachable(t, s)

	out, isErr := callTool(t, c, "observe", map[string]any{"what": "storage", "include_values": true})
	got := mustJSON(out)
	if isErr || out["tab"] != float64(4) || out["url"] != "http://app.test/?sid=[redacted]" ||
		!strings.Contains(got, `{"key":"session_token","size":27,"value":"[redacted]"}`) ||
		!strings.Contains(got, `"name":"sid","path":"/","size":6,"value":"[redacted]"`) ||
		strings.Contains(got, "plain-from") || strings.Contains(got, strings.Repeat("b", 2049)) || !strings.Contains(got, `"cut":true,"key":"blob","size":5000`) {
		t.Fatalf("%v %s", isErr, got)
	}
	if q := asked[0]; q["kind"] != "storage" || mustJSON(q["params"]) != `{"include_values":true}` || q["tab"] != float64(0) {
		t.Errorf("asked %s", mustJSON(q))
	}
	out, isErr = callTool(t, c, "observe", map[string]any{"what": "storage", "tab_id": 9})
	if !isErr || out["error"] != "storage_reads_off" || !strings.Contains(out["message"].(string), "human") {
		t.Errorf("off: %v", out)
	}
	if out, isErr := callTool(t, c, "observe", map[string]any{"what": "storage", "limit": 5}); !isErr || out["error"] != "invalid_param" {
		t.Errorf("a parameter storage does not read: %v", out)
	}
}
