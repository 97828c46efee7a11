package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func pngOf(w, h int) string {
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h)))
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// A screenshot is MCP image content with one text line, and an audit
// line; the extension's refusals reach the AI with their own codes.
func TestAnalyzeScreenshotThroughTheSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	s, base := startServerWith(t, Config{Version: "test", AuditLog: path})
	c := mcpClient(t, s)
	var asked map[string]any
	connectWorker(t, base, func(q map[string]any) map[string]any {
		p := q["params"].(map[string]any)
		asked = p
		switch p["selector"] {
		case "#hidden":
			return map[string]any{"error": map[string]any{"code": "tab_not_visible", "message": "bring it to the front"}}
		case "#off":
			return map[string]any{"error": map[string]any{"code": "ai_screenshots_off", "message": "the human said no"}}
		}
		return map[string]any{"tab": 4, "url": "http://app/", "result": map[string]any{"url": "http://app/x", "data": pngOf(40, 20), "matched": "div#box 40x20 at 1,1", "count": 1}}
	})
	waitReachable(t, s)

	req := mcp.CallToolRequest{}
	req.Params.Name = "analyze"
	req.Params.Arguments = map[string]any{"target": "screenshot", "selector": "#box", "format": "png", "max_width": 300}
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("%v %+v", err, res)
	}
	text, _ := res.Content[0].(mcp.TextContent)
	img, _ := res.Content[1].(mcp.ImageContent)
	if img.Type != "image" || img.MIMEType != "image/png" || img.Data != pngOf(40, 20) {
		t.Errorf("image part: %s %s", img.Type, img.MIMEType)
	}
	if !strings.HasPrefix(text.Text, "http://app/x 40x20 px, ") || !strings.Contains(text.Text, "selector matched div#box") {
		t.Errorf("text part: %q", text.Text)
	}
	if mustJSON(asked) != `{"format":"png","margin":8,"max_width":300,"selector":"#box"}` {
		t.Errorf("asked the worker %s", mustJSON(asked))
	}
	// Issue 58 row 16: the read's size is what the AI got, the image's
	// bytes too (not only the 53 B of text beside it).
	raw, _ := base64.StdEncoding.DecodeString(pngOf(40, 20))
	if rs := s.reads.Recent(); len(rs) == 0 || rs[len(rs)-1].Bytes != len(text.Text)+len(raw) {
		t.Errorf("read %+v, want %d + %d bytes", rs, len(text.Text), len(raw))
	}

	for sel, want := range map[string]string{"#hidden": "tab_not_visible", "#off": "ai_screenshots_off"} {
		out, isErr := callTool(t, c, "analyze", map[string]any{"target": "screenshot", "selector": sel})
		if !isErr || out["error"] != want {
			t.Errorf("%s: %v", sel, out)
		}
	}
	if out, isErr := callTool(t, c, "analyze", map[string]any{"target": "screenshot", "format": "gif"}); !isErr || out["error"] != "invalid_param" {
		t.Errorf("gif: %v", out)
	}

	log, _ := os.ReadFile(path)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(l), &ev) == nil && ev["action"] == "screenshot" {
			lines = append(lines, ev["result"].(string)+"/"+mustJSON(ev["error"]))
		}
	}
	if got := strings.Join(lines, " "); !strings.Contains(got, "40x20 png ") || !strings.Contains(got, "error/\"tab_not_visible\"") ||
		!strings.Contains(got, "error/\"ai_screenshots_off\"") || len(lines) != 3 {
		t.Errorf("audit lines: %v", lines)
	}
}

// verify's visual check: without the extension verify still works and
// says why there is no screenshot; with it, compare diffs the two.
func TestVerifyVisualCheck(t *testing.T) {
	dir := t.TempDir()
	s, base := startServerWith(t, Config{Version: "test", VisualDir: filepath.Join(dir, "visual")})
	c := mcpClient(t, s)
	out, isErr := callTool(t, c, "analyze", map[string]any{"target": "verify", "action": "start"})
	if v, _ := out["visual"].(map[string]any); isErr || v == nil || !strings.HasPrefix(v["error"].(string), "extension_not_connected: ") || out["session_id"] == nil {
		t.Fatalf("start without extension: %v", out)
	}
	shots := 0
	connectWorker(t, base, func(q map[string]any) map[string]any {
		shots++
		w := 40
		if shots > 1 {
			w = 50 // the page grew: a change
		}
		return map[string]any{"result": map[string]any{"url": "http://app/", "data": pngOf(w, 20)}}
	})
	waitReachable(t, s)
	out, _ = callTool(t, c, "analyze", map[string]any{"target": "verify", "action": "start"})
	id := out["session_id"].(string)
	if v := out["visual"].(map[string]any); v["start"] != filepath.Join(dir, "visual", id+"-start.png") {
		t.Fatalf("start: %v", out)
	}
	callTool(t, c, "analyze", map[string]any{"target": "verify", "action": "watch", "session_id": id})
	out, _ = callTool(t, c, "analyze", map[string]any{"target": "verify", "action": "compare", "session_id": id})
	v := out["visual"].(map[string]any)
	if v["changed_percent"] != float64(20) || v["size_changed"] != true || mustJSON(v["boxes"]) != `[{"height":20,"width":10,"x":40,"y":0}]` {
		t.Fatalf("compare: %v", v)
	}
	for _, f := range []string{"start", "compare", "diff"} {
		if fi, err := os.Stat(v[f].(string)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
