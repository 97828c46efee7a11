package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gasoline-dev/gasoline/server"
)

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// configure calls the MCP configure tool and returns its error code, if any.
func configure(t *testing.T, c *client.Client, settings map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "configure"
	req.Params.Arguments = map[string]any{"action": "capture", "settings": settings}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("configure: %v", err)
	}
	if !res.IsError {
		return ""
	}
	for _, part := range res.Content {
		if tc, ok := part.(mcp.TextContent); ok {
			var p struct {
				Error string `json:"error"`
			}
			if json.Unmarshal([]byte(tc.Text), &p) == nil && p.Error != "" {
				return p.Error
			}
			t.Fatalf("configure failed without a code: %s", tc.Text)
		}
	}
	t.Fatalf("configure failed without content")
	return ""
}

// configureWaiting retries while the one-second rate limit applies.
func configureWaiting(t *testing.T, c *client.Client, settings map[string]any) string {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for range 50 {
		if code := configure(t, c, settings); code != "rate_limited" {
			return code
		}
		<-tick.C
	}
	t.Fatal("configure stayed rate limited")
	return ""
}

// The dashboard attached to a server started by `gasoline --mcp`: the AI
// sets an override, the dashboard shows it, x revokes it, and the AI's next
// configure of it fails with revoked_by_user. When that process exits, the
// dashboard takes the port over.
func TestDashboardAttachedToMCPServer(t *testing.T) {
	port := freePort(t)
	home := t.TempDir()
	c, err := client.NewStdioMCPClient(binPath, []string{"HOME=" + home}, "--mcp", "--port", strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	mcpOpen := true
	t.Cleanup(func() {
		if mcpOpen {
			c.Close()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "claude-code", Version: "1.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if code := configure(t, c, map[string]any{"ws_mode": "messages"}); code != "" {
		t.Fatalf("the AI's configure failed: %s", code)
	}

	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	tokenFile := filepath.Join(home, ".gasoline", fmt.Sprintf("human-%d.token", port))
	tokenFiles.Store(addr, tokenFile)
	// Taking over is what main does: listen on the port and serve here.
	// The server stops after the dashboard (cleanups run last-in first-out).
	sctx, stop := context.WithCancel(context.Background())
	served := make(chan struct{}, 1)
	tookOver := make(chan struct{})
	t.Cleanup(func() {
		stop()
		select {
		case <-tookOver:
			<-served
		default:
		}
	})
	takeover := func(ctx context.Context) (bool, error) {
		ln, err := server.Listen(ctx, port)
		if errors.Is(err, server.ErrAlreadyRunning) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		select {
		case <-tookOver:
			t.Errorf("took the port over twice")
			ln.Close()
			return true, nil
		default:
			close(tookOver)
		}
		s := server.New(server.Config{Version: "taken-over", AuditLog: filepath.Join(home, "takeover.jsonl"), TokenFile: tokenFile})
		go func() { s.Serve(sctx, ln); served <- struct{}{} }()
		return true, nil
	}
	d := attach(t, addr, takeover)
	d.await("the MCP client in the header", func() bool { return strings.Contains(d.screen(), "MCP clients: claude-code") })

	selectSetting(d, "ws_mode")
	d.await("the AI's override", func() bool {
		l := d.line("ws_mode")
		return strings.Contains(l, "messages") && strings.Contains(l, "claude-code") && strings.Contains(l, "AI override")
	})
	d.press("x")
	d.await("ws_mode revoked", func() bool { return strings.Contains(d.line("ws_mode"), "REVOKED by you") })
	if code := configureWaiting(t, c, map[string]any{"ws_mode": "messages"}); code != "revoked_by_user" {
		t.Fatalf("the AI's configure after x: %q, want revoked_by_user", code)
	}
	d.press("6")
	d.await("the AI's change and the veto in the Audit pane", func() bool {
		return strings.Contains(d.line("set ws_mode"), "AI ▶ claude-code") &&
			strings.Contains(d.line("revoked ws_mode"), "you")
	})
	if want := filepath.Join(home, ".gasoline", "audit.jsonl"); d.m.panes.audit.path != want || !strings.Contains(d.screen(), "/.gasoline/audit.jsonl") {
		t.Fatalf("the Audit pane tails %q, want the server's %s:\n%s", d.m.panes.audit.path, want, d.screen())
	}

	// The owner exits; the dashboard becomes the server.
	mcpOpen = false
	c.Close()
	d.await("the takeover", func() bool {
		select {
		case <-tookOver:
		default:
			return false
		}
		return d.m.conn.Phase == Hosting && !d.m.conn.TookOver.IsZero() && d.m.health != nil && d.m.health.Version == "taken-over"
	})
	if !strings.Contains(d.screen(), "server in this process (took over at") {
		t.Fatalf("the header does not say it took over:\n%s", d.screen())
	}
}
