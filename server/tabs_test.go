package server

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/server/wire"
)

// The human frees an AI's tab with the token only; the line is the
// human's, names the tab and its owner; the owner keeps reading it, and
// another session may act on it.
func TestHumanFreesATab(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	s, base := startServerWith(t, Config{Version: "test", AuditLog: path})
	s.tabs.Own("s1", "agent-a", 12)
	free := call{method: "POST", path: "/api/tabs/free", body: `{"tab":12}`}
	if code, _ := do(t, base, free); code != 401 {
		t.Fatalf("without the token: %d", code)
	}
	if s.tabs.MayAct("s2", 12) == nil {
		t.Fatal("freed without the token")
	}
	free.header = asHuman(s)
	code, body := do(t, base, free)
	if code != 200 {
		t.Fatalf("with the token: %d %v", code, body)
	}
	if tabs, _ := body["ai_tabs"].([]any); len(tabs) != 1 || tabs[0].(map[string]any)["owned"] != nil {
		t.Fatalf("the answer: %v", body)
	}
	if err := s.tabs.MayAct("s2", 12); err != nil || s.tabs.Of("s1").Tab != 12 {
		t.Fatalf("after: %v, the owner reads tab %d", err, s.tabs.Of("s1").Tab)
	}
	var line map[string]any
	for _, l := range readAudit(t, path) {
		if l["event"] == "tab_freed" {
			line = l
		}
	}
	if line == nil || line["source"] != "human" || line["tab"] != float64(12) || line["from"] != "agent-a" {
		t.Fatalf("the audit line: %v", line)
	}
	for body, want := range map[string]int{`{"tab":12}`: 404, `{"tab":0}`: 400, `{}`: 400} {
		if code, got := do(t, base, call{method: "POST", path: "/api/tabs/free", body: body, header: asHuman(s)}); code != want {
			t.Fatalf("%s: %d %v, want %d", body, code, got, want)
		}
	}
}

// A change of the sessions' tabs reaches the dashboards at once, in the
// status they already read, bounded.
func TestTabsChangePushStatus(t *testing.T) {
	s, _ := startServer(t)
	sub, unsubscribe, ok := s.events.subscribe(true)
	if !ok {
		t.Fatal("subscribe")
	}
	defer unsubscribe()
	s.tabs.Own("s1", "agent-a", 12)
	want := `"ai_tabs":[{"agent":"agent-a","tab":12,"owned":true}]`
	deadline := time.After(10 * time.Second)
	for seen := false; !seen; {
		select {
		case <-sub.wake:
			for _, f := range sub.take() {
				seen = seen || strings.Contains(string(f), want)
				sub.release(len(f))
			}
		case <-deadline:
			t.Fatalf("no status with %s", want)
		}
	}
	for i := range wire.MaxAITabs + 5 {
		s.tabs.Track(string(rune('a'+i)), "x", 100+i)
	}
	if n := len(s.Health().AITabs); n != wire.MaxAITabs {
		t.Fatalf("%d bindings in the status, want %d", n, wire.MaxAITabs)
	}
}
