package capturectl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/problem"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newCtl(t *testing.T) (*Controller, *clock, string) {
	ck := &clock{time.Date(2026, 1, 24, 15, 32, 0, 0, time.UTC)}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log := audit.Open(path, nil, audit.WithClock(ck.now))
	t.Cleanup(func() { log.Close() })
	return New(log, ck.now), ck, path
}

func auditLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, _ := os.ReadFile(path)
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func code(err error) problem.Code { return problem.From(err).Code }

// Scenarios 1, 3 and 7.
func TestSetStoresAndAlerts(t *testing.T) {
	c, _, path := newCtl(t)
	changes, err := c.Set("claude-code", map[string]any{"ws_mode": "messages", "log_level": "all", "network_bodies": "false"})
	if err != nil || len(changes) != 3 {
		t.Fatal(err, changes)
	}
	v := c.Values()
	if v["ws_mode"] != "messages" || v["log_level"] != "all" || v["network_bodies"] != false {
		t.Fatalf("values: %v", v)
	}
	alerts, next := c.AlertsSince(0)
	if len(alerts) != 3 || alerts[2].Message != "AI changed ws_mode: lifecycle → messages" || alerts[2].From != "lifecycle" || alerts[2].To != "messages" {
		t.Fatalf("alerts: %+v", alerts)
	}
	if again, _ := c.AlertsSince(next); len(again) != 0 {
		t.Fatal("alerts delivered twice to one reader")
	}
	// Scenario 19: every setting its own audit line, with the agent.
	lines := auditLines(t, path)
	if len(lines) != 3 || lines[0]["agent"] != "claude-code" || lines[0]["source"] != "ai" || lines[0]["event"] != "capture_override" {
		t.Fatalf("audit: %v", lines)
	}
	st := c.State().Overrides["ws_mode"]
	if st.Default != "lifecycle" || st.Agent != "claude-code" || st.ChangedAt.IsZero() {
		t.Fatalf("override: %+v", st)
	}
}

// Scenarios 5 and 6: validation names what is valid; nothing changes.
func TestValidation(t *testing.T) {
	c, _, _ := newCtl(t)
	_, err := c.Set("a", map[string]any{"foo": 1})
	if code(err) != problem.InvalidParam || err.Error() != "invalid_param: Unknown capture setting: foo. Valid: log_level, ws_mode, network_bodies, screenshot_on_error, action_replay." {
		t.Fatal(err)
	}
	_, err = c.Set("a", map[string]any{"log_level": "verbose"})
	if err == nil || !strings.Contains(err.Error(), "Invalid value 'verbose' for log_level. Valid: error, warn, all.") {
		t.Fatal(err)
	}
	_, err = c.Set("a", map[string]any{"ws_mode": "messages", "action_replay": "maybe"})
	if code(err) != problem.InvalidParam || len(c.Values()) != 0 {
		t.Fatalf("partial apply: %v %v", err, c.Values())
	}
	if _, err := c.Set("a", map[string]any{}); code(err) != problem.InvalidParam {
		t.Fatal(err)
	}
	// The human's own setting is not the AI's to change, whatever the value, and nothing of the call applies.
	_, err = c.Set("a", map[string]any{"ai_screenshots": true, "ws_mode": "off"})
	if code(err) != problem.Forbidden || !strings.Contains(err.Error(), "ai_screenshots is the human's own setting") || len(c.Values()) != 0 {
		t.Fatalf("human setting: %v %v", err, c.Values())
	}
}

// Scenarios 4, 17 and 18.
func TestResetAndRateLimit(t *testing.T) {
	c, ck, path := newCtl(t)
	if _, err := c.Set("a", map[string]any{"log_level": "all"}); err != nil {
		t.Fatal(err)
	}
	ck.advance(999 * time.Millisecond)
	_, err := c.Set("a", map[string]any{"ws_mode": "off"})
	if code(err) != problem.RateLimited || !strings.Contains(err.Error(), "at most once per second") {
		t.Fatal(err)
	}
	if err := c.Reset("a"); code(err) != problem.RateLimited {
		t.Fatal(err)
	}
	ck.advance(time.Millisecond)
	if err := c.Reset("a"); err != nil {
		t.Fatal(err)
	}
	if len(c.Values()) != 0 {
		t.Fatal("reset kept overrides")
	}
	ck.advance(time.Second)
	if _, err := c.Set("a", map[string]any{"ws_mode": "off"}); err != nil {
		t.Fatal(err)
	}
	last := auditLines(t, path)
	if last[1]["event"] != "capture_reset" || last[1]["reason"] != "explicit" {
		t.Fatalf("audit: %v", last)
	}
}

func TestRevokeAndAllow(t *testing.T) {
	c, ck, path := newCtl(t)
	var pushed []map[string]any
	c.OnChange(func(v map[string]any) { pushed = append(pushed, v) })
	c.Set("agent-x", map[string]any{"ws_mode": "messages", "log_level": "all"})
	cursor := c.AlertCursor()
	done, err := c.Revoke("ws_mode")
	if err != nil || len(done) != 1 {
		t.Fatal(err)
	}
	if _, ok := c.Values()["ws_mode"]; ok || c.Values()["log_level"] != "all" {
		t.Fatalf("values after revoke: %v", c.Values())
	}
	if last := pushed[len(pushed)-1]; len(last) != 1 {
		t.Fatalf("revoke not pushed: %v", pushed)
	}
	a, _ := c.AlertsSince(cursor)
	if len(a) != 1 || a[0].Type != "capture_revoked" || a[0].Setting != "ws_mode" {
		t.Fatalf("alert: %+v", a)
	}
	ck.advance(2 * time.Second)
	_, err = c.Set("agent-x", map[string]any{"ws_mode": "lifecycle"})
	if code(err) != problem.RevokedByUser || !strings.Contains(err.Error(), "Ask them") {
		t.Fatal(err)
	}
	if err := c.Allow("ws_mode"); err != nil {
		t.Fatal(err)
	}
	if err := c.Allow("ws_mode"); code(err) != problem.NotFound {
		t.Fatal(err)
	}
	if _, err := c.Set("agent-x", map[string]any{"ws_mode": "lifecycle"}); err != nil {
		t.Fatal(err)
	}
	ck.advance(2 * time.Second)
	if done, _ := c.Revoke(""); strings.Join(done, ",") != "log_level,ws_mode" || len(c.Values()) != 0 {
		t.Fatalf("revoke all: %v %v", done, c.Values())
	}
	var events []string
	for _, l := range auditLines(t, path) {
		events = append(events, l["event"].(string)+"/"+l["source"].(string))
	}
	want := "capture_override/ai,capture_override/ai,capture_revoked/human,capture_allowed/human,capture_override/ai,capture_revoked/human,capture_revoked/human"
	if strings.Join(events, ",") != want {
		t.Fatalf("audit: %v", events)
	}
	if _, err := c.Revoke("nope"); code(err) != problem.InvalidParam {
		t.Fatal(err)
	}
}

// Scenario 9: a new session (server) starts with no overrides, and the
// old one's end is audited.
func TestSessionEnd(t *testing.T) {
	c, _, path := newCtl(t)
	c.Set("a", map[string]any{"log_level": "all"})
	c.EndSession()
	if len(c.Values()) != 0 {
		t.Fatal("overrides survive the session")
	}
	l := auditLines(t, path)
	if l[1]["reason"] != "session_end" || l[1]["source"] != "server" || l[1]["agent"] != "" {
		t.Fatalf("%v", l[1])
	}
}

// Scenario 14: no audit log, capture control still works.
func TestWorksWithoutAuditLog(t *testing.T) {
	c := New(nil, nil)
	if _, err := c.Set("a", map[string]any{"ws_mode": "messages"}); err != nil || c.Values()["ws_mode"] != "messages" {
		t.Fatal(err)
	}
}

func TestAlertsAreBoundedAndReadPerCursor(t *testing.T) {
	c, ck, _ := newCtl(t)
	first := c.AlertCursor()
	for i := range maxAlerts + 10 {
		ck.advance(time.Second)
		if _, err := c.Set("a", map[string]any{"ws_mode": []string{"off", "messages"}[i%2]}); err != nil {
			t.Fatal(err)
		}
	}
	all, next := c.AlertsSince(first)
	if len(all) != maxAlerts || next != c.AlertCursor() {
		t.Fatalf("%d alerts kept, cursor %d", len(all), next)
	}
	late := c.AlertCursor()
	ck.advance(time.Second)
	c.Reset("a")
	if got, _ := c.AlertsSince(late); len(got) != 1 || got[0].Type != "capture_reset" {
		t.Fatalf("a later reader: %+v", got)
	}
}
