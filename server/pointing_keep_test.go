package server

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gasoline-dev/gasoline/features/history"
)

// logBuf is a server's log, safe to read while it writes.
type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// What the human pointed at, and who read it, goes to the port's next
// owner: the point is on disk (0600) before the human hears it was sent,
// a read soon after, and the next server lists the same entries and puts
// them at the top of each of its sessions' next observe.
func TestPointedSurvivesTheNextServer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "history-1")
	file := filepath.Join(dir, history.PointedFile)
	s1, base := startServerWith(t, Config{Version: "test", HistoryDir: dir})
	post(t, base, "/network", `{"entries":[{"ts":1700000000000,"method":"POST","url":"http://app.test/api/cart","status":500,"tab":3}]}`)
	point := `{"kind":"network","entry":{"ts":"2023-11-14T22:13:20.000Z","method":"POST","url":"http://app.test/api/cart","status":500,"tab":3},"note":"why?"}`
	if code, out := do(t, base, call{method: "POST", path: "/api/point", body: point, header: asHuman(s1)}); code != 200 {
		t.Fatalf("point: %d %v", code, out)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), `"note":"why?"`) {
		t.Fatalf("answered before it was kept: %s %v", b, err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v %v", file, fi, err)
	}
	audit := `{"kind":"audit","entry":{"event":"approval_decided","action":"execute_js","result":"denied"}}`
	if code, out := do(t, base, call{method: "POST", path: "/api/point", body: audit, header: asHuman(s1)}); code != 200 {
		t.Fatalf("point: %d %v", code, out)
	}
	if res, _ := callTool(t, clientNamed(t, s1, "cursor"), "observe", map[string]any{"what": "logs"}); res["human_pointed"] == nil {
		t.Fatalf("the first server's session: %v", res)
	}
	eventually(t, "the read kept while the server serves", func() bool {
		b, _ := os.ReadFile(file)
		return strings.Count(string(b), `"read_by":["cursor"]`) == 2
	})
	before, _ := s1.pointed.List("", "")
	stopServer(t, s1)
	// Once it handed the history on, the old server writes nothing more.
	if _, err := s1.pointed.Add("console", []byte(`{"message":"late"}`), "late", ""); err != nil {
		t.Fatal(err)
	}
	s1.pointed.write()

	s2, base2 := startServerWith(t, Config{Version: "test", HistoryDir: dir})
	if after, _ := s2.pointed.List("", ""); mustJSON(after) != mustJSON(before) {
		t.Fatalf("the next server holds\n%s\nwant\n%s", mustJSON(after), mustJSON(before))
	}
	if st := s2.pointed.state(); st.Newest == nil || st.Newest.Kind != "audit" || strings.Join(st.Newest.ReadBy, ",") != "cursor" {
		t.Fatalf("the dashboard's state on the next server: %+v", st.Newest)
	}
	// A dashboard attaching to the next server finds it in its header.
	openStream(t, base2, "").until(t, "pointed", `"read_by":["cursor"]`)
	c := clientNamed(t, s2, "claude-code")
	res, _ := callTool(t, c, "observe", map[string]any{"what": "errors"})
	lines, _ := res["human_pointed"].([]any)
	if len(lines) != 2 || !strings.HasPrefix(lines[0].(string), "the human pointed at: audit approval_decided execute_js") ||
		!strings.Contains(lines[1].(string), `POST http://app.test/api/cart → 500 — their note: "why?" (observe what:"pointed", id 1)`) {
		t.Fatalf("top of the next server's first observe: %v", res)
	}
	list, _ := callTool(t, c, "observe", map[string]any{"what": "pointed"})
	if list["count"] != 2.0 || !strings.Contains(mustJSON(list), `"read_by":["cursor","claude-code"]`) {
		t.Fatalf("observe pointed on the next server: %s", mustJSON(list))
	}
}

// A pointed.json the next server cannot take is left behind with a line
// in its log; the server serves with an empty board and replaces the file
// at the next point.
func TestPointedFileTheNextServerCannotRead(t *testing.T) {
	for name, body := range map[string]string{
		"garbage":  `{"entries":[{"id":1,`,
		"too long": `{"entries":[],"pad":"` + strings.Repeat("x", 2<<20) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "history-1")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, history.PointedFile)
			if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			var log logBuf
			s, base := startServerWith(t, Config{Version: "test", HistoryDir: dir, Log: &log})
			if !strings.Contains(log.String(), "what the human pointed at is not restored: ") {
				t.Fatalf("log: %q", log.String())
			}
			if out, _ := callTool(t, mcpClient(t, s), "observe", map[string]any{"what": "pointed"}); out["count"] != 0.0 {
				t.Fatalf("observe pointed: %v", out)
			}
			audit := `{"kind":"audit","entry":{"event":"pilot_blocked"}}`
			if code, out := do(t, base, call{method: "POST", path: "/api/point", body: audit, header: asHuman(s)}); code != 200 {
				t.Fatalf("point: %d %v", code, out)
			}
			if b, _ := os.ReadFile(file); !strings.Contains(string(b), "pilot_blocked") || strings.Contains(string(b), "pad") {
				t.Fatalf("the file after a point: %.200s", b)
			}
		})
	}
}
