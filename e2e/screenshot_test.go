//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// shot is one analyze{target:"screenshot"} answer: its text part, and the
// image decoded, or the error's code.
type shot struct {
	caption string
	mime    string
	raw     []byte
	img     image.Image
	code    string // the error code of a refusal
	msg     string
	took    time.Duration // the MCP call, the image's decoding in the test apart
}

func screenshot(t testing.TB, c *client.Client, args map[string]any) shot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "analyze"
	req.Params.Arguments = map[string]any{"target": "screenshot"}
	for k, v := range args {
		req.Params.Arguments.(map[string]any)[k] = v
	}
	t0 := time.Now()
	res, err := c.CallTool(ctx, req)
	took := time.Since(t0)
	if err != nil {
		t.Fatalf("screenshot %v: %v", args, err)
	}
	s := shot{took: took}
	for _, part := range res.Content {
		switch p := part.(type) {
		case mcp.TextContent:
			s.caption = p.Text
		case mcp.ImageContent:
			s.mime = p.MIMEType
			if s.raw, err = base64.StdEncoding.DecodeString(p.Data); err != nil {
				t.Fatalf("image data: %v", err)
			}
		}
	}
	if res.IsError {
		var e struct{ Error, Message string }
		_ = json.Unmarshal([]byte(s.caption), &e)
		s.code, s.msg = e.Error, e.Message
		return s
	}
	if len(res.Content) != 2 || s.raw == nil {
		t.Fatalf("screenshot %v: want a text and an image part, got %d parts: %q", args, len(res.Content), s.caption)
	}
	if s.mime == "image/png" {
		s.img, err = png.Decode(bytes.NewReader(s.raw))
	} else {
		s.img, err = jpeg.Decode(bytes.NewReader(s.raw))
	}
	if err != nil {
		t.Fatalf("decode %s: %v", s.mime, err)
	}
	return s
}

func isRed(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return r>>8 > 200 && g>>8 < 70 && b>>8 < 70
}

func isBlue(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return r>>8 < 70 && g>>8 < 70 && b>>8 > 200
}

func isWhite(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return r>>8 > 230 && g>>8 > 230 && b>>8 > 230
}

// darkPixels counts the pixels of img darker than mid-grey.
func darkPixels(img image.Image) int {
	n := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if (r>>8)+(g>>8)+(b>>8) < 3*128 {
				n++
			}
		}
	}
	return n
}

func TestScreenshot(t *testing.T) {
	r := newRig(t, "shot-agent", map[string]any{})
	url := r.open(t, "/shot.html")
	vw := analyze(t, r.ai, map[string]any{"target": "page_info"})["viewport"].(map[string]any)["width"].(float64)

	// The viewport, JPEG by default: red where the box is, white beside it.
	v := screenshot(t, r.ai, nil)
	if v.code != "" || v.mime != "image/jpeg" {
		t.Fatalf("viewport: %s %q %s", v.code, v.msg, v.mime)
	}
	k := float64(v.img.Bounds().Dx()) / vw // image pixels per CSS pixel
	if v.img.Bounds().Dx() > 1024 {
		t.Errorf("viewport is %d px wide, over the default max_width 1024", v.img.Bounds().Dx())
	}
	at := func(x, y float64) (int, int) { return int(x * k), int(y * k) }
	for _, p := range [][2]float64{{110, 160}, {200, 200}, {290, 240}} {
		if x, y := at(p[0], p[1]); !isRed(v.img, x, y) {
			t.Errorf("viewport: no red at CSS %v (image %d,%d): %v", p, x, y, v.img.At(x, y))
		}
	}
	for _, p := range [][2]float64{{90, 200}, {310, 200}, {200, 140}, {200, 260}} {
		if x, y := at(p[0], p[1]); !isWhite(v.img, x, y) {
			t.Errorf("viewport: not white at CSS %v beside the box: %v", p, v.img.At(x, y))
		}
	}
	if !containsAll(v.caption, url, "bytes", "jpeg") {
		t.Errorf("caption: %q", v.caption)
	}

	// max_width scales it down.
	small := screenshot(t, r.ai, map[string]any{"max_width": 200})
	if small.code != "" || small.img.Bounds().Dx() > 200 || small.img.Bounds().Dx() < 150 {
		t.Errorf("max_width 200: %s %v", small.code, small.img.Bounds())
	}

	// One element, PNG: the box and a few pixels around it, red inside, white at the edge.
	b := screenshot(t, r.ai, map[string]any{"selector": "#box", "format": "png"})
	if b.code != "" || b.mime != "image/png" {
		t.Fatalf("selector: %s %q", b.code, b.msg)
	}
	w, h := b.img.Bounds().Dx(), b.img.Bounds().Dy()
	if w < 200 || w > 230 || h < 100 || h > 130 {
		t.Errorf("selector #box: %dx%d, want about 200x100 plus a margin", w, h)
	}
	if !isRed(b.img, w/2, h/2) || !isWhite(b.img, 1, 1) || !isWhite(b.img, w-2, h-2) {
		t.Errorf("selector #box: centre %v, corners %v %v", b.img.At(w/2, h/2), b.img.At(1, 1), b.img.At(w-2, h-2))
	}
	if !strings.Contains(b.caption, "div#box 200x100") {
		t.Errorf("caption names no match: %q", b.caption)
	}

	// An element below the fold is scrolled to.
	below := screenshot(t, r.ai, map[string]any{"selector": "#below", "format": "png"})
	if below.code != "" {
		t.Fatalf("below the fold: %s %q", below.code, below.msg)
	}
	if bw, bh := below.img.Bounds().Dx(), below.img.Bounds().Dy(); bw < 120 || bw > 150 || bh < 80 || bh > 110 {
		t.Errorf("#below: %dx%d", bw, bh)
	}

	// A password field shows nothing of its value: no dots, no text.
	pw := screenshot(t, r.ai, map[string]any{"selector": "#pw", "format": "png"})
	if pw.code != "" {
		t.Fatalf("password: %s %q", pw.code, pw.msg)
	}
	if n := darkPixels(pw.img); n > 0 {
		t.Errorf("the password field shows %d dark pixels: its dots or value", n)
	}

	// The whole page, PNG at its CSS width: the box at its place, and the blue box 1400 px down that
	// the viewport does not show; the scroll is put back.
	full := screenshot(t, r.ai, map[string]any{"full_page": true, "format": "png", "max_width": int(vw)})
	if full.code != "" {
		t.Fatalf("full_page: %s %q", full.code, full.msg)
	}
	if fh := full.img.Bounds().Dy(); fh < 1480 || full.img.Bounds().Dx() != int(vw) {
		t.Errorf("full_page: %v, want %v wide and at least 1480 tall", full.img.Bounds(), vw)
	}
	if !isRed(full.img, 200, 200) || !isBlue(full.img, 160, 1440) || !isWhite(full.img, 160, 1300) {
		t.Errorf("full_page: box %v, blue box %v, between %v", full.img.At(200, 200), full.img.At(160, 1440), full.img.At(160, 1300))
	}

	// Refusals: no match, a bad selector.
	if s := screenshot(t, r.ai, map[string]any{"selector": "#nothing"}); s.code != "not_found" {
		t.Errorf("no match: %q %q", s.code, s.msg)
	}
	if s := screenshot(t, r.ai, map[string]any{"selector": "div[["}); s.code != "invalid_param" {
		t.Errorf("bad selector: %q %q", s.code, s.msg)
	}

	// Each screenshot is a line of the audit log.
	log, _ := os.ReadFile(filepath.Join(testHome, ".gasoline", "audit.jsonl"))
	if !strings.Contains(string(log), `"event":"analyze","source":"ai","agent":"shot-agent","action":"screenshot","result":"216x116 png`) ||
		!strings.Contains(string(log), `"agent":"shot-agent","action":"screenshot","result":"error","error":"not_found"`) {
		t.Errorf("audit log lacks the screenshot:\n%s", log)
	}
}

// full_page on a page taller than the cap: cut at 8,000 CSS pixels, and
// the text says so.
func TestScreenshotFullPageCap(t *testing.T) {
	r := newRig(t, "shot-tall-agent", map[string]any{})
	r.open(t, "/shot-tall.html")
	vw := analyze(t, r.ai, map[string]any{"target": "page_info"})["viewport"].(map[string]any)["width"].(float64)
	s := screenshot(t, r.ai, map[string]any{"full_page": true, "max_width": 200})
	if s.code != "" {
		t.Fatalf("%s %q", s.code, s.msg)
	}
	k := float64(s.img.Bounds().Dx()) / vw
	if h := float64(s.img.Bounds().Dy()) / k; h < 7990 || h > 8010 {
		t.Errorf("height %v CSS px, want 8000", h)
	}
	if !strings.Contains(s.caption, "page is 12000 px tall, cut at 8000") {
		t.Errorf("caption %q", s.caption)
	}
	if !isBlue(s.img, 100, int(100*k)) || !isRed(s.img, 100, int(7800*k)) {
		t.Errorf("marks: top %v, at 7800 %v", s.img.At(100, int(100*k)), s.img.At(100, int(7800*k)))
	}
}

// A tab behind another in its window is refused at once with
// tab_not_visible; the one in front is captured.
func TestScreenshotBackgroundTab(t *testing.T) {
	r := newRig(t, "shot-bg-agent", map[string]any{})
	r.open(t, "/shot.html")
	first := observe(t, r.ai, map[string]any{"what": "page"})["tab"]

	// A second tab comes to the front of the same window.
	open := `chrome.tabs.get(` + mustJSON(first) + `).then((t) => chrome.tabs.create({windowId: t.windowId, active: true, url: ` +
		mustJSON(r.site+"/dom.html") + `})).then((t) => t.id)`
	if _, err := chromedp.Run(r.b.sw, chromedp.Evaluate[float64](open, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the second tab tracked", func() bool {
		return observe(t, r.ai, map[string]any{"what": "page"})["tab"] != first
	})
	// Waiting for the tab to come to the front would end in timeout.
	s := screenshot(t, r.ai, map[string]any{"tab_id": first})
	if s.code != "tab_not_visible" || !strings.Contains(s.msg, "front") {
		t.Errorf("background tab: %q %q", s.code, s.msg)
	}
	if s := screenshot(t, r.ai, nil); s.code != "" || !strings.Contains(s.caption, "/dom.html") {
		t.Errorf("the tab in front: %q %q %q", s.code, s.msg, s.caption)
	}
}

// The human turns AI screenshots off on the options page: the AI is
// refused with ai_screenshots_off, cannot turn them on through configure,
// and is served again once the human allows it.
func TestScreenshotHumanSwitch(t *testing.T) {
	r := newRig(t, "shot-off-agent", map[string]any{"ai_screenshots": false})
	r.open(t, "/shot.html")
	if s := screenshot(t, r.ai, nil); s.code != "ai_screenshots_off" || !strings.Contains(s.msg, "human") {
		t.Fatalf("off: %q %q", s.code, s.msg)
	}
	out, isErr, err := callTool(r.ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"ai_screenshots": true}})
	if err != nil || !isErr || out["error"] != "forbidden" {
		t.Errorf("configure ai_screenshots: %v %v", err, out)
	}
	if s := screenshot(t, r.ai, nil); s.code != "ai_screenshots_off" {
		t.Errorf("after configure: %q %q", s.code, s.msg)
	}
	r.b.setCapture(t, map[string]any{"ai_screenshots": true})
	if s := screenshot(t, r.ai, nil); s.code != "" || s.img == nil {
		t.Errorf("on again: %q %q", s.code, s.msg)
	}
}

// verify's visual check: a fix that changes nothing visible reports ~0 %,
// one that changes the heading's colour a small share boxed at the
// heading; the screenshots and the difference are private files.
func TestVerifyVisual(t *testing.T) {
	r := newRig(t, "visual-agent", map[string]any{})
	r.open(t, "/shot.html")
	start := analyze(t, r.ai, map[string]any{"target": "verify", "action": "start"})
	id := start["session_id"].(string)
	vs, _ := start["visual"].(map[string]any)
	if vs == nil || vs["start"] == nil {
		t.Fatalf("start: %v", start)
	}
	if fi, err := os.Stat(vs["start"].(string)); err != nil || fi.Mode().Perm() != 0o600 || filepath.Dir(vs["start"].(string)) != filepath.Join(testHome, ".gasoline", "visual") {
		t.Fatalf("start file %v: %v", vs["start"], err)
	}
	analyze(t, r.ai, map[string]any{"target": "verify", "action": "watch", "session_id": id})

	same := analyze(t, r.ai, map[string]any{"target": "verify", "action": "compare", "session_id": id})["visual"].(map[string]any)
	if same["changed_percent"] != float64(0) || same["summary"] != "nothing visible changed" || same["boxes"] != nil || same["diff"] == nil || same["compare"] == nil {
		t.Errorf("nothing changed: %v", same)
	}

	if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`document.getElementById("title").style.color = "rgb(0, 160, 0)"; true`)); err != nil {
		t.Fatal(err)
	}
	box, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[map[string]float64](`(() => { const r = document.getElementById("title").getBoundingClientRect();
		return {x: r.x, y: r.y, r: r.right, b: r.bottom, vw: innerWidth}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	got := analyze(t, r.ai, map[string]any{"target": "verify", "action": "compare", "session_id": id})
	v := got["visual"].(map[string]any)
	share, _ := v["changed_percent"].(float64)
	boxes, _ := v["boxes"].([]any)
	if share <= 0 || share > 3 || len(boxes) == 0 || !strings.HasPrefix(v["summary"].(string), "a small change: ") {
		t.Fatalf("heading colour: %v", v)
	}
	t.Logf("heading colour changed: %.2f%% of the pixels, boxes %v", share, boxes)
	k := v["width"].(float64) / box["vw"] // image pixels per CSS pixel
	for _, b := range boxes {
		b := b.(map[string]any)
		x, y, w, h := b["x"].(float64)/k, b["y"].(float64)/k, b["width"].(float64)/k, b["height"].(float64)/k
		if x < box["x"]-2 || y < box["y"]-2 || x+w > box["r"]+2 || y+h > box["b"]+2 {
			t.Errorf("changed region %v is outside the heading %v", b, box)
		}
	}
	for _, f := range []string{"start", "compare", "diff"} {
		if fi, err := os.Stat(v[f].(string)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s file %v: %v", f, v[f], err)
		}
	}
	log, _ := os.ReadFile(filepath.Join(testHome, ".gasoline", "audit.jsonl"))
	if !strings.Contains(string(log), `"agent":"visual-agent","action":"verify compare","result":"`+id) || !strings.Contains(string(log), "% changed") {
		t.Errorf("audit log lacks the visual check:\n%s", log)
	}
}

// A tab closed while the AI's screenshot waits for its navigation to
// commit: the answer is not_found when it closes, not timeout at the
// deadline.
func TestScreenshotOfATabClosedWhileNavigating(t *testing.T) {
	r := newRig(t, "shot-closed-agent", map[string]any{})
	r.open(t, "/shot.html")
	second, closeTab := chromedp.NewContext(r.b.ctx)
	defer closeTab()
	if err := chromedp.Do(second, chromedp.Navigate(r.site+"/other.html")); err != nil {
		t.Fatal(err)
	}
	var tab any
	waitFor(t, 20*time.Second, "the second tab tracked", func() bool {
		p := observe(t, r.ai, map[string]any{"what": "page"})
		tab = p["tab"]
		return p["url"] == r.site+"/other.html"
	})
	if _, err := http.Post(r.site+"/fixture/switch?delay_ms=60000", "", nil); err != nil {
		t.Fatal(err)
	}
	go chromedp.Run(second, chromedp.Navigate(r.site+"/slow.html")) // ends when the tab closes
	waitFor(t, 20*time.Second, "the browser to ask for slow.html", func() bool {
		res, err := http.Get(r.site + "/fixture/slow-waiting")
		if err != nil {
			return false
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b) != "0"
	})
	type answer struct {
		out   map[string]any
		isErr bool
		err   error
	}
	done := make(chan answer, 1)
	go func() {
		out, isErr, err := callTool(r.ai, "analyze", map[string]any{"target": "screenshot", "tab_id": tab})
		done <- answer{out, isErr, err}
	}()
	time.Sleep(2 * time.Second) // the condition: the screenshot waits in the worker for slow.html to commit
	closeTab()
	select {
	case a := <-done:
		// "tab N was closed"; "no tab with id N" if the query came after the close.
		if a.err != nil || !a.isErr || a.out["error"] != "not_found" {
			t.Fatalf("a screenshot of a tab closed mid-navigation: %v %v %v, want not_found", a.err, a.isErr, a.out)
		}
		t.Logf("%v", a.out["message"])
	case <-time.After(60 * time.Second):
		t.Fatal("no answer a minute after the tab closed")
	}
}
