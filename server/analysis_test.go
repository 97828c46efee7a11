package server

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
)

const (
	shopPage  = "http://127.0.0.1:5000/shop.html"
	leakedJWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MiIsIm5hbWUiOiJBZGEifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	leakedKey = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrSqUvW"
)

// post sends one batch as the extension does.
func post(t *testing.T, base, path, body string) {
	t.Helper()
	if code, out := do(t, base, call{method: "POST", path: path, body: body, header: map[string]string{"Origin": ExtensionOrigin}}); code != 200 {
		t.Fatalf("%s: %d %v", path, code, out)
	}
}

// mustCall calls a tool that must succeed.
func mustCall(t *testing.T, c *client.Client, name string, args map[string]any) map[string]any {
	t.Helper()
	out, isErr := callTool(t, c, name, args)
	if isErr {
		t.Fatalf("%s %v: %v", name, args, out)
	}
	return out
}

// wantProblem calls a tool that must fail with code, its message naming msg.
func wantProblem(t *testing.T, c *client.Client, name string, args map[string]any, code, msg string) {
	t.Helper()
	out, isErr := callTool(t, c, name, args)
	if !isErr || out["error"] != code || !strings.Contains(out["message"].(string), msg) {
		t.Errorf("%s %v: isError=%v %v, want %s naming %q", name, args, isErr, out, code, msg)
	}
}

// auditOf returns the analyze lines of the audit log whose action starts with prefix.
func auditOf(t *testing.T, path, prefix string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range readAudit(t, path) {
		if a, _ := l["action"].(string); l["event"] == "analyze" && strings.HasPrefix(a, prefix) {
			out = append(out, l)
		}
	}
	return out
}

func rules(report map[string]any) []string {
	var out []string
	for _, f := range report["findings"].([]any) {
		out = append(out, f.(map[string]any)["rule"].(string))
	}
	return out
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
