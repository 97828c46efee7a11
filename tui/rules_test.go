package tui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/audit"
)

// runAll runs a command and the commands its message leads to, as the
// program would, into m.
func runAll(m *Model, cmd tea.Cmd) {
	for cmd != nil {
		msg := cmd()
		if msg == nil {
			return
		}
		_, cmd = m.Update(msg)
	}
}

// a in the overlay asks the server for a rule from the call shown; x on a
// rule in the Overrides pane revokes that rule; X revokes the overrides
// and every rule.
func TestRuleKeysCallTheServer(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		calls = append(calls, r.URL.Path+" "+string(b))
		mu.Unlock()
		_, _ = io.WriteString(w, `{"mode":"ask"}`)
	}))
	defer srv.Close()
	m := sampleModelAt(120, 40)
	m.client = NewClient(srv.URL)
	m.Update(sampleApproval())
	_, cmd := m.Update(keyMsg("a"))
	runAll(m, cmd)
	m.Update(sampleRules())
	m.Update(keyMsg("5"))
	m.Update(keyMsg("end"))
	_, cmd = m.Update(keyMsg("x"))
	runAll(m, cmd)
	m.Update(sampleRules())
	_, cmd = m.Update(keyMsg("X"))
	runAll(m, cmd)
	want := []string{
		`/api/approvals/rule {"id":7,"approve":true}`,
		`/api/approvals/rules/revoke {"id":3}`,
		`/api/overrides/revoke {"all":true}`,
		`/api/approvals/rules/revoke {"all":true}`,
	}
	if got := strings.Join(calls, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}

// The Audit pane says which rule a line is about.
func TestAuditRowsNameTheRule(t *testing.T) {
	desc := "rule 3: execute_js on http://localhost:5173 for claude-code's session until 2026-11-28T02:00:00Z"
	for e, want := range map[audit.Event]string{
		{Event: "approval_rule_made", RuleID: 3, Rule: desc}:                                         "made " + desc,
		{Event: "approval_decided", Action: "execute_js", Result: "approved", RuleID: 3, Rule: desc}: "approval_decided action=execute_js result=approved by rule 3",
		{Event: "approval_rule_ended", Result: "session_ended", RuleID: 3, Rule: desc}:               desc + " ended: session_ended",
	} {
		if got := auditWhat(e); got != want {
			t.Errorf("%s: %q, want %q", e.Event, got, want)
		}
	}
}
