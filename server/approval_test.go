package server

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/features/approval"
)

// In ask mode every interact call waits for the human: approved, it runs;
// denied, the AI gets denied_by_user and the reason; unanswered,
// approval_timeout. Each request and decision is a line in the audit log.
func TestAskModeWaitsForTheHuman(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	s, base := startServerWith(t, Config{Version: "test", AuditLog: path, PilotApproval: "ask", ApprovalTimeout: time.Second})
	ai := clientNamed(t, s, "claude-code")
	pilotWorker(t, base, true)
	waitReachable(t, s)
	eventually(t, "the pilot on", func() bool { return s.PilotStatus().Enabled })

	type answer struct {
		out   map[string]any
		isErr bool
	}
	act := func(args map[string]any) chan answer {
		ch := make(chan answer, 1)
		go func() {
			out, isErr := callTool(t, ai, "interact", args)
			ch <- answer{out, isErr}
		}()
		return ch
	}
	pending := func() []any {
		_, a := do(t, base, call{method: "GET", path: "/api/approvals"})
		p, _ := a["pending"].([]any)
		return p
	}
	waitPending := func() map[string]any {
		eventually(t, "one call on /api/approvals", func() bool { return len(pending()) == 1 })
		return pending()[0].(map[string]any)
	}
	answerIt := func(req map[string]any, body string) {
		t.Helper()
		id := strconv.Itoa(int(req["id"].(float64)))
		if code, out := do(t, base, call{method: "POST", path: "/api/approvals/answer",
			body: `{"id":` + id + `,` + body + `}`, header: asHuman(s)}); code != 200 {
			t.Fatalf("answer: %d %v", code, out)
		}
	}

	got := act(map[string]any{"action": "execute_js", "script": "return document.title"})
	req := waitPending()
	if req["agent"] != "claude-code" || req["action"] != "execute_js" || req["script"] != "return document.title" {
		t.Fatalf("pending: %v", req)
	}
	// Neither the AI nor a call without the token can answer it.
	id := strconv.Itoa(int(req["id"].(float64)))
	if code, _ := do(t, base, call{method: "POST", path: "/api/approvals/answer", body: `{"id":` + id + `,"approve":true}`}); code != 401 {
		t.Fatalf("an answer without the token: %d", code)
	}
	if code, _ := do(t, base, call{method: "POST", path: "/api/approvals/mode", body: `{"mode":"auto"}`}); code != 401 {
		t.Fatalf("a mode change without the token: %d", code)
	}
	answerIt(req, `"approve":true`)
	if a := <-got; a.isErr || a.out["tab"] != float64(5) {
		t.Fatalf("approved: %v", a)
	}

	got = act(map[string]any{"action": "highlight", "selector": "#go"})
	answerIt(waitPending(), `"approve":false,"reason":"not that button"`)
	if a := <-got; !a.isErr || a.out["error"] != "denied_by_user" || !strings.Contains(a.out["message"].(string), "not that button") {
		t.Fatalf("denied: %v", a)
	}

	if a := <-act(map[string]any{"action": "list_states"}); !a.isErr || a.out["error"] != "approval_timeout" {
		t.Fatalf("unanswered: %v", a)
	}
	if len(pending()) != 0 {
		t.Fatal("a timed-out request still waits")
	}

	// The human's mode holds, and auto runs at once.
	if code, _ := do(t, base, call{method: "POST", path: "/api/approvals/mode", body: `{"mode":"auto"}`, header: asHuman(s)}); code != 200 {
		t.Fatal("mode change refused")
	}
	if a := <-act(map[string]any{"action": "list_states"}); a.isErr {
		t.Fatalf("auto: %v", a)
	}

	var lines []string
	for _, l := range readAudit(t, path) {
		switch l["event"] {
		case "approval_requested", "approval_decided", "approval_mode":
			r, _ := l["result"].(string)
			if r == "" {
				r, _ = l["to"].(string)
			}
			lines = append(lines, l["event"].(string)+":"+r)
		}
	}
	want := "approval_mode:ask approval_requested: approval_decided:approved approval_requested: approval_decided:denied " +
		"approval_requested: approval_decided:timeout approval_mode:auto"
	if strings.Join(lines, " ") != want {
		t.Fatalf("audit:\n%s\nwant\n%s", strings.Join(lines, " "), want)
	}
}

// While an action waits for the human, the AI's call gets progress
// notifications about once a second.
func TestAskModeSendsProgress(t *testing.T) {
	s, base := startServerWith(t, Config{Version: "test", PilotApproval: "ask", ApprovalTimeout: 2500 * time.Millisecond})
	pilotWorker(t, base, true)
	waitReachable(t, s)
	eventually(t, "the pilot on", func() bool { return s.PilotStatus().Enabled })
	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	waiting := 0
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if msg, _ := n.Params.AdditionalFields["message"].(string); n.Method == "notifications/progress" &&
			n.Params.AdditionalFields["progressToken"] == "tok-ask" && strings.Contains(msg, "waiting for the human") {
			mu.Lock()
			waiting++
			mu.Unlock()
		}
	})
	ctx := context.Background()
	c.Start(ctx)
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "claude-code"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := mcp.CallToolRequest{}
	req.Params.Name = "interact"
	req.Params.Arguments = map[string]any{"action": "list_states"}
	req.Params.Meta = &mcp.Meta{ProgressToken: "tok-ask"}
	res, err := c.CallTool(ctx, req)
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(mcp.TextContent).Text, "approval_timeout") {
		t.Fatalf("%v %v", err, res)
	}
	// Notifications travel beside the response, not before it: await them.
	seen := func() int { mu.Lock(); defer mu.Unlock(); return waiting }
	eventually(t, "two progress notifications", func() bool { return seen() >= 2 })
}

// An AI that stops waiting for its own interact calls (it cancels them)
// leaves an approval_decided line for each, and the requests leave the
// dashboard's queue; one refused because too many wait has its line too:
// every approval_requested line has its approval_decided line.
func TestCancelledApprovalIsDecided(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	s, base := startServerWith(t, Config{Version: "test", AuditLog: path, PilotApproval: "ask", ApprovalTimeout: time.Minute})
	ai := clientNamed(t, s, "claude-code")
	pilotWorker(t, base, true)
	waitReachable(t, s)
	eventually(t, "the pilot on", func() bool { return s.PilotStatus().Enabled })

	ctx, cancel := context.WithCancel(context.Background())
	var calls sync.WaitGroup
	for range approval.MaxPending {
		calls.Go(func() {
			req := mcp.CallToolRequest{}
			req.Params.Name = "interact"
			req.Params.Arguments = map[string]any{"action": "highlight", "selector": "#go"}
			_, _ = ai.CallTool(ctx, req)
		})
	}
	eventually(t, "a full approval queue", func() bool { return len(s.Approvals().Pending) == approval.MaxPending })
	if out, isErr := callTool(t, ai, "interact", map[string]any{"action": "list_states"}); !isErr || out["error"] != "rate_limited" {
		t.Fatalf("one past the queue: %v", out)
	}
	cancel()
	calls.Wait()
	eventually(t, "the approval queue emptied", func() bool { return len(s.Approvals().Pending) == 0 })
	count := func() (requested, cancelled, refused int) {
		for _, l := range readAudit(t, path) {
			switch {
			case l["event"] == "approval_requested":
				requested++
			case l["event"] == "approval_decided" && l["result"] == "cancelled" && l["action"] == "highlight" && l["agent"] == "claude-code":
				cancelled++
			case l["event"] == "approval_decided" && l["result"] == "refused" && l["error"] == "rate_limited" && l["action"] == "list_states":
				refused++
			}
		}
		return
	}
	eventually(t, "every approval_requested line decided", func() bool { r, c, f := count(); return r == approval.MaxPending+1 && c+f == r })
	if r, c, f := count(); c != approval.MaxPending || f != 1 {
		t.Fatalf("%d requested, %d cancelled, %d refused", r, c, f)
	}
}
