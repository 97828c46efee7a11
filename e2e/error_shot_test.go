//go:build e2e

package e2e

import (
	"bytes"
	"image/png"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestScreenshotOnErrorTooLargeForOnePOST: a screen whose PNG is over what one POST to the server
// takes (a screen of noise, 2560×1600 pixels no encoder can shrink: ~16 MB of base64) is scaled down in the
// worker until it fits, and still named on its error — not refused by the server and lost.
func TestScreenshotOnErrorTooLargeForOnePOST(t *testing.T) {
	r := newRig(t, "bigshot-agent", map[string]any{})
	resizeWindow(t, r.b.ctx, 2560, 1600)
	r.open(t, "/capture.html")
	// Random pixels over the whole viewport at its device pixels, then two frames so it is on screen.
	noise := `(async () => {
		const c = document.createElement('canvas');
		c.width = innerWidth * devicePixelRatio;
		c.height = innerHeight * devicePixelRatio;
		c.style.cssText = 'position:fixed;left:0;top:0;width:100vw;height:100vh;z-index:9';
		const g = c.getContext('2d');
		const im = g.createImageData(c.width, c.height);
		const px = new Uint32Array(im.data.buffer);
		for (let i = 0; i < px.length; i++) px[i] = ((Math.random() * 0x1000000) | 0) | 0xff000000;
		g.putImageData(im, 0, 0);
		document.body.appendChild(c);
		await new Promise((f) => requestAnimationFrame(() => requestAnimationFrame(f)));
		return c.width;
	})()`
	w, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[int](noise, chromedp.EvalAwaitPromise))
	if err != nil || w < 2500 {
		t.Fatalf("the screen of noise: %d pixels wide, %v", w, err)
	}
	screenshotOnError(t, r)
	r.eval(t, `throwLater("big-shot-error")`)
	shot := awaitErrorScreenshot(t, r, "big-shot-error", 30*time.Second)
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	// Scaled down from the capture's 2560 pixels, and still the noise (not a blank or black image).
	bd := img.Bounds()
	if bd.Dx() >= 2560 || bd.Dx() < 300 || len(b) > 4_500_000*3/4 {
		t.Fatalf("screenshot %v, %d bytes: want scaled below 2560 wide and within one POST", bd, len(b))
	}
	t.Logf("the screen %d pixels wide; its screenshot %v, %d bytes", w, bd, len(b))
	colours := map[[3]uint32]bool{}
	for i := range 64 {
		r, g, b, _ := img.At(bd.Dx()*(i%8+1)/10, bd.Dy()*(i/8+1)/10).RGBA()
		colours[[3]uint32{r, g, b}] = true
	}
	if len(colours) < 32 {
		t.Fatalf("the screenshot is not the screen of noise: %d colours in 64 points", len(colours))
	}
}
