package server

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
)

// POST /screenshots keeps the extension's PNG and attaches it to the error
// it was taken for; what is not a PNG is refused, and a server without a
// screenshot directory says so.
func TestScreenshotUpload(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shots")
	_, base := startServerWith(t, Config{Version: "test", ScreenshotDir: dir})
	ext := map[string]string{"Origin": ExtensionOrigin}
	if code, out := do(t, base, call{method: "POST", path: "/logs", header: ext,
		body: `{"entries":[{"ts":1700000000000,"level":"error","message":"boom","tab":3}]}`}); code != 200 {
		t.Fatalf("logs: %d %v", code, out)
	}
	png := append([]byte("\x89PNG\r\n\x1a\n"), "pixels"...)
	body := `{"tab":3,"ts":1700000000000,"image":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(png) + `"}`
	code, out := do(t, base, call{method: "POST", path: "/screenshots", header: ext, body: body})
	if code != 200 || out["attached"] != true {
		t.Fatalf("upload: %d %v", code, out)
	}
	file, _ := out["file"].(string)
	if got, err := os.ReadFile(file); err != nil || !bytes.Equal(got, png) || filepath.Dir(file) != dir {
		t.Fatalf("saved %q: %v", file, err)
	}

	for _, image := range []string{"not base64!", base64.StdEncoding.EncodeToString([]byte("GIF89a"))} {
		code, out := do(t, base, call{method: "POST", path: "/screenshots", header: ext, body: `{"tab":3,"image":"` + image + `"}`})
		if code != 400 || out["error"] != "invalid_param" {
			t.Errorf("image %q: %d %v", image, code, out)
		}
	}

	_, off := startServer(t)
	if code, out := do(t, off, call{method: "POST", path: "/screenshots", header: ext, body: body}); code != 404 || out["error"] != "not_found" {
		t.Fatalf("screenshots disabled: %d %v", code, out)
	}
}

// Issue 41: writing a file to disk is the extension's alone: without its
// Origin (a local process, a page's no-cors request) or with a page's, the
// upload is refused and nothing is written.
func TestScreenshotNeedsTheExtensionsOrigin(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shots")
	_, base := startServerWith(t, Config{Version: "test", ScreenshotDir: dir})
	png := append([]byte("\x89PNG\r\n\x1a\n"), "pixels"...)
	body := `{"tab":3,"ts":253402300799000,"image":"` + base64.StdEncoding.EncodeToString(png) + `"}`
	for _, h := range []map[string]string{nil, {"Origin": "https://evil.example"}, {"Origin": "null"}} {
		if code, out := do(t, base, call{method: "POST", path: "/screenshots", header: h, body: body}); code != 403 {
			t.Fatalf("Origin %v: %d %v", h, code, out)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("written: %v", entries)
	}
}
