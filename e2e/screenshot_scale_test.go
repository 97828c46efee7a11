//go:build e2e

package e2e

import (
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// Screenshots measure the capture: a viewport emulated at 1000×700 (as
// DevTools' device mode does), a device-pixel ratio of 2, and a zoom of
// 150% each give a JPEG within max_width with the red box where it is, and
// the element crop on the element.
func TestScreenshotAtAnyScale(t *testing.T) {
	r := newRig(t, "scale-agent", map[string]any{})
	resizeWindow(t, r.b.ctx, 1280, 800)
	r.open(t, "/shot-box.html")
	tab := chromedp.FromContext(r.b.ctx).Target
	emulate := func(p emulation.SetDeviceMetricsOverrideParams) {
		t.Helper()
		if _, err := cdp.Call(r.b.ctx, tab, emulation.SetDeviceMetricsOverride, p); err != nil {
			t.Fatal(err)
		}
	}
	zoom := func(f float64) {
		t.Helper()
		js := `chrome.tabs.query({}).then((ts) => Promise.all(ts.filter((t) => t.url.includes('shot-box')).map((t) => chrome.tabs.setZoom(t.id, ` +
			mustJSON(f) + `)))).then(() => true)`
		if _, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise)); err != nil {
			t.Fatal(err)
		}
	}
	check := func(name string) {
		t.Helper()
		vp := analyze(t, r.ai, map[string]any{"target": "page_info"})["viewport"].(map[string]any)
		vw, vh := vp["width"].(float64), vp["height"].(float64)
		v := screenshot(t, r.ai, nil)
		if v.code != "" || v.mime != "image/jpeg" || v.img.Bounds().Dx() > 1024 {
			t.Fatalf("%s: %s %q %s %v", name, v.code, v.msg, v.mime, v.img.Bounds())
		}
		kx, ky := float64(v.img.Bounds().Dx())/vw, float64(v.img.Bounds().Dy())/vh
		// The box is 100..300 × 150..250 CSS pixels: red inside, white outside.
		if !isRed(v.img, int(200*kx), int(200*ky)) || !isRed(v.img, int(110*kx), int(160*ky)) || !isWhite(v.img, int(90*kx), int(200*ky)) || !isWhite(v.img, int(200*kx), int(260*ky)) {
			t.Fatalf("%s: the box is not where it is (viewport %vx%v, image %v)", name, vw, vh, v.img.Bounds())
		}
		c := screenshot(t, r.ai, map[string]any{"selector": "#box"})
		if c.code != "" {
			t.Fatalf("%s crop: %s %q", name, c.code, c.msg)
		}
		b := c.img.Bounds()
		if !isRed(c.img, b.Dx()/2, b.Dy()/2) || !isRed(c.img, b.Dx()/8, b.Dy()/8) || !isRed(c.img, b.Dx()*7/8, b.Dy()*7/8) {
			t.Fatalf("%s: the crop is not on the element (%v)", name, b)
		}
		if ratio := float64(b.Dx()) / float64(b.Dy()); ratio < 1.8 || ratio > 2.2 {
			t.Fatalf("%s: the crop is %v, not the box's 2:1", name, b)
		}
	}
	emulate(emulation.SetDeviceMetricsOverrideParams{Width: 1000, Height: 700, DeviceScaleFactor: 1})
	check("emulated 1000x700")
	emulate(emulation.SetDeviceMetricsOverrideParams{Width: 0, Height: 0, DeviceScaleFactor: 2})
	check("device-pixel ratio 2")
	if _, err := cdp.Call(r.b.ctx, tab, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	zoom(1.5)
	check("zoom 150%")
}
