package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/approval"
)

// wsAI is an MCP session over /mcp/ws, the way the relay connects: a real
// session of the server, with an id, that ends when the socket closes.
type wsAI struct {
	c    *websocket.Conn
	ctx  context.Context
	mu   sync.Mutex
	next int
	wait map[int]chan map[string]any
}

func dialAI(t *testing.T, base, name string) *wsAI {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, strings.Replace(base, "http", "ws", 1)+"/mcp/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	ai := &wsAI{c: c, ctx: ctx, wait: map[int]chan map[string]any{}}
	_ = c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"`+name+`","version":"1"}}}`))
	if _, _, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	}
	_ = c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	go func() {
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			var m struct {
				ID     *int `json:"id"`
				Result struct {
					IsError bool `json:"isError"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"result"`
			}
			if json.Unmarshal(b, &m) != nil || m.ID == nil {
				continue
			}
			out := map[string]any{}
			if len(m.Result.Content) > 0 {
				_ = json.Unmarshal([]byte(m.Result.Content[0].Text), &out)
			}
			out["isError"] = m.Result.IsError
			ai.mu.Lock()
			ch := ai.wait[*m.ID]
			ai.mu.Unlock()
			if ch != nil {
				ch <- out
			}
		}
	}()
	return ai
}

// act sends an interact call; its result lands on the channel.
func (ai *wsAI) act(args map[string]any) chan map[string]any {
	ch := make(chan map[string]any, 1)
	ai.mu.Lock()
	ai.next++
	id := ai.next
	ai.wait[id] = ch
	ai.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "interact", "arguments": args}})
	_ = ai.c.Write(ai.ctx, websocket.MessageText, b)
	return ch
}

func ran(t *testing.T, ch chan map[string]any) map[string]any {
	t.Helper()
	select {
	case out := <-ch:
		if out["isError"] == true {
			t.Fatalf("refused: %v", out)
		}
		return out
	case <-time.After(20 * time.Second):
		t.Fatal("no answer in 20 s")
	}
	return nil
}

// askingServer is a server started with cfg whose extension has the AI
// Web Pilot on.
func askingServer(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	s, base := startServerWith(t, cfg)
	pilotWorker(t, base, true)
	waitReachable(t, s)
	eventually(t, "the pilot on", func() bool { return s.PilotStatus().Enabled })
	return s, base
}

// showPage has the extension report tab 5 at url, the tab the AI's calls
// act on.
func showPage(t *testing.T, base, url string) {
	t.Helper()
	if code, out := do(t, base, call{method: "POST", path: "/page", body: `{"tab":5,"url":"` + url + `","title":"Shop","active":true}`,
		header: map[string]string{"Origin": ExtensionOrigin}}); code != 200 {
		t.Fatalf("page: %d %v", code, out)
	}
}

// The human's a makes a rule: the call and every later execute_js of that
// AI session on that origin run without asking, each audited with the
// rule; another origin, another session, or a revoked rule asks again;
// the AI cannot make one; the rule ends with its session and is never
// written to the decisions file.
func TestApprovalRule(t *testing.T) {
	dir := t.TempDir()
	path, state := filepath.Join(dir, "audit.jsonl"), filepath.Join(dir, "decisions.json")
	s, base := askingServer(t, Config{Version: "test", AuditLog: path, StateFile: state, PilotApproval: "ask", ApprovalTimeout: 20 * time.Second})
	page := func(url string) { t.Helper(); showPage(t, base, url) }
	page("http://localhost:5173/cart")
	ai := dialAI(t, base, "claude-code")
	js := map[string]any{"action": "execute_js", "script": "1 + 1"}
	waiting := func() approval.Request {
		t.Helper()
		eventually(t, "one call awaiting approval", func() bool { return len(s.Approvals().Pending) == 1 })
		return s.Approvals().Pending[0]
	}
	rule := func(id uint64, header map[string]string) int {
		code, _ := do(t, base, call{method: "POST", path: "/api/approvals/rule", body: `{"id":` + strconv.FormatUint(id, 10) + `}`, header: header})
		return code
	}

	// The AI can name no rule: a call that asks for one is refused before
	// it reaches the human, and without the token no rule is made.
	asked := <-ai.act(map[string]any{"action": "execute_js", "script": "1", "rule": true, "approve_similar": true})
	if asked["error"] != "invalid_param" || len(s.Approvals().Pending) != 0 || len(s.Approvals().Rules) != 0 {
		t.Fatalf("a call asking for a rule: %v; pending %v, rules %v", asked, s.Approvals().Pending, s.Approvals().Rules)
	}
	first := ai.act(js)
	req := waiting()
	if req.Origin != "http://localhost:5173" {
		t.Fatalf("waiting call's origin: %q", req.Origin)
	}
	if code := rule(req.ID, nil); code != 401 || len(s.Approvals().Rules) != 0 {
		t.Fatalf("a rule without the token: %d, %v", code, s.Approvals().Rules)
	}
	if code := rule(req.ID, asHuman(s)); code != 200 {
		t.Fatalf("rule: %d", code)
	}
	ran(t, first)
	rules := s.Approvals().Rules
	if len(rules) != 1 || rules[0].Action != "execute_js" || rules[0].Origin != "http://localhost:5173" || rules[0].Agent != "claude-code" {
		t.Fatalf("rules: %+v", rules)
	}
	for range 4 {
		ran(t, ai.act(js))
	}
	if b, _ := os.ReadFile(state); strings.Contains(string(b), "rule") || strings.Contains(string(b), "5173") {
		t.Fatalf("the decisions file holds the rule: %s", b)
	}
	tied := 0
	for _, l := range readAudit(t, path) {
		if l["rule_id"] == float64(rules[0].ID) {
			tied++
			if l["event"] != "approval_rule_made" && (l["event"] != "approval_decided" || l["result"] != "approved") {
				t.Errorf("line with the rule: %v", l)
			}
		}
	}
	if tied != 6 {
		t.Fatalf("%d audit lines name the rule, want 6 (made + 5 approved)", tied)
	}

	// A call on a tab other than the tracked one names no origin: it asks.
	elsewhere := ai.act(map[string]any{"action": "execute_js", "script": "1 + 1", "tab_id": 9})
	if req = waiting(); req.Origin != "" {
		t.Fatalf("another tab's call names %q", req.Origin)
	}
	if _, _, err := s.approvals.Answer(req.ID, true, ""); err != nil {
		t.Fatal(err)
	}
	ran(t, elsewhere)

	// Another origin asks.
	page("http://127.0.0.1:5173/cart")
	other := ai.act(js)
	req = waiting()
	if _, _, err := s.approvals.Answer(req.ID, true, ""); err != nil {
		t.Fatal(err)
	}
	ran(t, other)

	// Another session asks, on the rule's origin.
	page("http://localhost:5173/cart")
	second := dialAI(t, base, "claude-code")
	next := second.act(js)
	req = waiting()
	if _, _, err := s.approvals.Answer(req.ID, true, ""); err != nil {
		t.Fatal(err)
	}
	ran(t, next)

	// Revoked, the rule approves nothing.
	if code, _ := do(t, base, call{method: "POST", path: "/api/approvals/rules/revoke", body: fmt.Sprintf(`{"id":%d}`, rules[0].ID)}); code != 401 {
		t.Fatalf("a revoke without the token: %d", code)
	}
	if code, _ := do(t, base, call{method: "POST", path: "/api/approvals/rules/revoke", body: fmt.Sprintf(`{"id":%d}`, rules[0].ID), header: asHuman(s)}); code != 200 {
		t.Fatalf("revoke: %d", code)
	}
	again := ai.act(js)
	req = waiting()
	if _, _, err := s.approvals.ApproveWithRule(req.ID, s.approvals.rules); err != nil {
		t.Fatal(err)
	}
	ran(t, again)

	// The session ends, and its rule with it.
	ai.c.Close(websocket.StatusNormalClosure, "")
	// The rule leaves the list before its end is audited: wait for both.
	var ends []string
	eventually(t, "both rules ended and audited", func() bool {
		ends = nil
		for _, l := range readAudit(t, path) {
			if l["event"] == "approval_rule_ended" {
				ends = append(ends, l["result"].(string))
			}
		}
		return len(ends) == 2 && len(s.Approvals().Rules) == 0
	})
	if strings.Join(ends, " ") != "revoked session_ended" {
		t.Fatalf("rule ends: %v", ends)
	}
}

// No tool has a parameter that could make, keep or widen an approval
// rule: they are the human's alone.
func TestNoToolParameterMakesARule(t *testing.T) {
	s := New(Config{Version: "test"})
	res, err := mcpClient(t, s).ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		for name := range tool.InputSchema.Properties {
			if l := strings.ToLower(name); strings.Contains(l, "rule") || strings.Contains(l, "approv") {
				t.Errorf("%s has parameter %s", tool.Name, name)
			}
		}
	}
}

// Thirty minutes after it was made a rule approves nothing: the next call
// asks, and the audit log says the rule expired.
func TestApprovalRuleExpires(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	ck := &testClock{t: time.Date(2026, 1, 24, 15, 32, 0, 0, time.UTC)}
	s, base := askingServer(t, Config{Version: "test", AuditLog: path, PilotApproval: "ask", ApprovalTimeout: 20 * time.Second, Clock: ck.now})
	showPage(t, base, "http://localhost:5173/")
	ai := dialAI(t, base, "claude-code")
	js := map[string]any{"action": "execute_js", "script": "1 + 1"}
	waiting := func() approval.Request {
		t.Helper()
		eventually(t, "one call awaiting approval", func() bool { return len(s.Approvals().Pending) == 1 })
		return s.Approvals().Pending[0]
	}
	first := ai.act(js)
	if code, _ := do(t, base, call{method: "POST", path: "/api/approvals/rule", body: fmt.Sprintf(`{"id":%d}`, waiting().ID), header: asHuman(s)}); code != 200 {
		t.Fatalf("rule: %d", code)
	}
	ran(t, first)
	ck.advance(approval.RuleTTL - time.Second)
	ran(t, ai.act(js))
	ck.advance(time.Second)
	late := ai.act(js)
	if _, _, err := s.approvals.Answer(waiting().ID, true, ""); err != nil {
		t.Fatal(err)
	}
	ran(t, late)
	var ends []string
	for _, l := range readAudit(t, path) {
		if l["event"] == "approval_rule_ended" {
			ends = append(ends, l["result"].(string)+" "+l["source"].(string))
		}
	}
	if strings.Join(ends, ",") != "expired server" || len(s.Approvals().Rules) != 0 {
		t.Fatalf("ends %v, rules %v", ends, s.Approvals().Rules)
	}
}

// A server that stops with rules active audits each one's end, as
// server_stopped, before its own: the audit never leaves a rule open. One
// rule is a relay's session the stop closes; the other's session is one
// whose end the server does not see before it stops (the in-process
// relay's, which ends with the process).
func TestServerStopEndsItsRules(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	s, base := askingServer(t, Config{Version: "test", AuditLog: path, PilotApproval: "ask", ApprovalTimeout: 20 * time.Second})
	showPage(t, base, "http://localhost:5173/")
	ai := dialAI(t, base, "claude-code")
	first := ai.act(map[string]any{"action": "execute_js", "script": "1 + 1"})
	eventually(t, "one call awaiting approval", func() bool { return len(s.Approvals().Pending) == 1 })
	if code, _ := do(t, base, call{method: "POST", path: "/api/approvals/rule", body: fmt.Sprintf(`{"id":%d}`, s.Approvals().Pending[0].ID), header: asHuman(s)}); code != 200 {
		t.Fatalf("rule: %d", code)
	}
	ran(t, first)
	go func() {
		_, _ = s.approvals.Ask(context.Background(), approval.Request{Agent: "cursor", Session: "in-process", Action: "execute_js",
			Origin: "http://localhost:5173"}, time.Minute, nil)
	}()
	eventually(t, "one call awaiting approval", func() bool { return len(s.Approvals().Pending) == 1 })
	if _, _, err := s.approvals.ApproveWithRule(s.Approvals().Pending[0].ID, s.approvals.rules); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range s.Approvals().Rules {
		want = append(want, fmt.Sprintf("%d server_stopped server", r.ID))
	}
	if len(want) != 2 {
		t.Fatalf("rules: %v", s.Approvals().Rules)
	}
	stopServer(t, s)
	var ends []string
	stopped := false
	for _, l := range readAudit(t, path) {
		switch {
		case l["event"] == "approval_rule_ended" && !stopped:
			ends = append(ends, fmt.Sprintf("%v %v %v", l["rule_id"], l["result"], l["source"]))
		case l["event"] == "approval_rule_ended":
			t.Errorf("a rule ended after the server stopped: %v", l)
		case l["event"] == "server_stop":
			stopped = true
		}
	}
	slices.Sort(ends)
	if !stopped || !slices.Equal(ends, want) {
		t.Fatalf("audit at stop: %v (server_stop %v), want %v", ends, stopped, want)
	}
}

// A session's rules end as server_stopped when the server's stopping
// closes it (its context ends, as the in-process relay's does), and as
// session_ended when its client goes.
func TestSessionRulesEndWithTheirCause(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	s, _ := startServerWith(t, Config{Version: "test", AuditLog: path})
	ends := func() []string {
		var out []string
		for _, l := range readAudit(t, path) {
			if l["event"] == "approval_rule_ended" {
				out = append(out, l["result"].(string))
			}
		}
		return out
	}
	for i, how := range []string{approval.EndServerStopped, approval.EndSessionEnded} {
		ctx, cancel := context.WithCancel(context.Background())
		gone := make(chan struct{})
		_, end := memPipe(gone)
		served := make(chan struct{})
		go func() { _ = s.ServeSession(ctx, end); close(served) }()
		var id string
		eventually(t, "one session", func() bool {
			s.clients.mu.Lock()
			defer s.clients.mu.Unlock()
			for sid := range s.clients.by {
				id = sid
			}
			return len(s.clients.by) == 1
		})
		go func() {
			_, _ = s.approvals.Ask(context.Background(), approval.Request{Agent: "cursor", Session: id, Action: "execute_js",
				Origin: "http://localhost:5173"}, time.Minute, nil)
		}()
		eventually(t, "one call awaiting approval", func() bool { return len(s.Approvals().Pending) == 1 })
		if _, _, err := s.approvals.ApproveWithRule(s.Approvals().Pending[0].ID, s.approvals.rules); err != nil {
			t.Fatal(err)
		}
		if how == approval.EndServerStopped {
			cancel()
		} else {
			close(gone)
		}
		<-served
		cancel()
		eventually(t, "the rule's end audited", func() bool { return len(ends()) == i+1 })
		if got := ends()[i]; got != how {
			t.Fatalf("session %d's rule ended %s, want %s", i, got, how)
		}
	}
}
