//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestFirefoxScreenshot: the viewport and one element, decoded, from the
// Firefox build; password fields blank there too.
func TestFirefoxScreenshot(t *testing.T) {
	r := newFoxRig(t, "ff-shot-agent", map[string]any{})
	url := r.open(t, "/shot.html")
	w, err := r.f.eval(r.f.tab, `innerWidth`)
	if err != nil {
		t.Fatal(err)
	}
	vw := w.(float64)

	v := screenshot(t, r.ai, nil)
	if v.code != "" || v.mime != "image/jpeg" {
		t.Fatalf("viewport: %s %q", v.code, v.msg)
	}
	k := float64(v.img.Bounds().Dx()) / vw
	for _, p := range [][2]float64{{110, 160}, {200, 200}, {290, 240}} {
		if x, y := int(p[0]*k), int(p[1]*k); !isRed(v.img, x, y) {
			t.Errorf("viewport: no red at CSS %v: %v", p, v.img.At(x, y))
		}
	}
	if x, y := int(310*k), int(200*k); !isWhite(v.img, x, y) {
		t.Errorf("viewport: not white beside the box: %v", v.img.At(x, y))
	}
	if !strings.Contains(v.caption, url) {
		t.Errorf("caption %q", v.caption)
	}
	b := screenshot(t, r.ai, map[string]any{"selector": "#box", "format": "png"})
	if b.code != "" {
		t.Fatalf("selector: %s %q", b.code, b.msg)
	}
	if w, h := b.img.Bounds().Dx(), b.img.Bounds().Dy(); w < 200 || w > 230 || h < 100 || h > 130 || !isRed(b.img, w/2, h/2) {
		t.Errorf("selector #box: %dx%d centre %v", w, h, b.img.At(w/2, h/2))
	}
	pw := screenshot(t, r.ai, map[string]any{"selector": "#pw", "format": "png"})
	if pw.code != "" {
		t.Fatalf("password: %s %q", pw.code, pw.msg)
	}
	if n := darkPixels(pw.img); n > 0 {
		t.Errorf("the password field shows %d dark pixels", n)
	}

	// Another tab comes to the front of the window: the page's tab is refused at once.
	first := observe(t, r.ai, map[string]any{"what": "page"})["tab"]
	popup := r.f.openExtensionPage(t, "ui/popup.html")
	start := time.Now()
	if s := screenshot(t, r.ai, map[string]any{"tab_id": first}); s.code != "tab_not_visible" { // waiting for the tab would end in timeout
		t.Errorf("background tab: %q %q after %v", s.code, s.msg, time.Since(start))
	}
	r.f.closeTab(t, popup)
	waitFor(t, 10*time.Second, "the page's tab back in front", func() bool {
		return screenshot(t, r.ai, map[string]any{"tab_id": first}).code == ""
	})
}
