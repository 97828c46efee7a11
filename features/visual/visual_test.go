package visual

import (
	"image"
	"image/color"
	"image/draw"
	"os"
	"path/filepath"
	"testing"
)

func page(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	return img
}

func fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

func TestNothingChanged(t *testing.T) {
	a, b := page(200, 100), page(200, 100)
	fill(a, image.Rect(10, 10, 50, 30), color.Black)
	fill(b, image.Rect(10, 10, 50, 30), color.RGBA{20, 20, 20, 255}) // within Tolerance: noise
	res, diff := Compare(a, b)
	if res.ChangedPixels != 0 || res.ChangedShare != 0 || len(res.Boxes) != 0 || res.SizeChanged || res.Summary != "nothing visible changed" {
		t.Fatalf("%+v", res)
	}
	if diff.Bounds().Dx() != 200 || diff.RGBAAt(20, 20).R != diff.RGBAAt(20, 20).G {
		t.Fatalf("diff image: %v %v", diff.Bounds(), diff.RGBAAt(20, 20))
	}
}

// A heading whose colour changed: a small share, one box exactly around it.
func TestHeadingColour(t *testing.T) {
	a, b := page(400, 300), page(400, 300)
	fill(a, image.Rect(20, 30, 220, 60), color.Black)
	fill(b, image.Rect(20, 30, 220, 60), color.RGBA{0, 0, 200, 255})
	res, diff := Compare(a, b)
	if res.ChangedPixels != 200*30 || res.ChangedShare != 5 || res.Summary != "a visible change: 5.00% of the pixels, in 1 region" {
		t.Fatalf("%+v", res)
	}
	if len(res.Boxes) != 1 || res.Boxes[0] != (Box{20, 30, 200, 30}) {
		t.Fatalf("boxes %+v", res.Boxes)
	}
	if diff.RGBAAt(100, 40) != (color.RGBA{255, 0, 0, 255}) || diff.RGBAAt(300, 200).R != diff.RGBAAt(300, 200).B {
		t.Fatalf("diff image: changed %v, same %v", diff.RGBAAt(100, 40), diff.RGBAAt(300, 200))
	}
}

// Two separate changes are two boxes, largest first; half the layout moved
// is about half the pixels.
func TestRegionsAndLargeChange(t *testing.T) {
	a, b := page(400, 300), page(400, 300)
	fill(b, image.Rect(10, 10, 20, 20), color.Black)
	fill(b, image.Rect(200, 200, 300, 260), color.Black)
	res, _ := Compare(a, b)
	if res.Summary != "a visible change: 5.08% of the pixels, in 2 regions" {
		t.Errorf("summary %q", res.Summary)
	}
	if len(res.Boxes) != 2 || res.Boxes[0] != (Box{200, 200, 100, 60}) || res.Boxes[1] != (Box{10, 10, 10, 10}) {
		t.Fatalf("boxes %+v", res.Boxes)
	}
	half := page(400, 300)
	fill(half, image.Rect(0, 150, 400, 300), color.Black)
	if res, _ := Compare(a, half); res.ChangedShare != 50 || len(res.Boxes) != 1 || res.Summary != "a large change: 50.00% of the pixels, in 1 region" {
		t.Fatalf("half: %+v", res)
	}
}

func TestManyRegionsAreBounded(t *testing.T) {
	a, b := page(1000, 100), page(1000, 100)
	for x := 0; x < 1000; x += 40 { // 25 separate dots
		fill(b, image.Rect(x, 50, x+2, 52), color.Black)
	}
	res, _ := Compare(a, b)
	if len(res.Boxes) != MaxBoxes || res.BoxesOmitted != 5 {
		t.Fatalf("%d boxes, %d omitted", len(res.Boxes), res.BoxesOmitted)
	}
}

func TestSizeChanged(t *testing.T) {
	res, _ := Compare(page(100, 100), page(100, 120))
	if !res.SizeChanged || res.Height != 120 || res.ChangedPixels != 100*20 || len(res.Boxes) != 1 || res.Boxes[0] != (Box{0, 100, 100, 20}) {
		t.Fatalf("%+v", res)
	}
}

func TestDirWritesPrivateFilesAndPrunes(t *testing.T) {
	d := NewDir(filepath.Join(t.TempDir(), "visual"))
	file, err := d.WriteImage("verify-1a2b", "start", page(10, 10))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 || filepath.Base(file) != "verify-1a2b-start.png" {
		t.Fatalf("%s: %v %v", file, fi.Mode(), err)
	}
	if fi, _ := os.Stat(filepath.Dir(file)); fi.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", fi.Mode())
	}
	if img, err := d.Read("verify-1a2b", "start"); err != nil || img.Bounds().Dx() != 10 {
		t.Fatalf("read: %v", err)
	}
	if _, err := d.Write("../x", "start", nil); err == nil {
		t.Fatal("a path in the session name was accepted")
	}
	for i := range Keep + 5 {
		if _, err := d.WriteImage("s", string(rune('a'+i%26))+string(rune('a'+i/26)), page(1, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "*.png")); len(m) != Keep {
		t.Fatalf("%d files kept, want %d", len(m), Keep)
	}
}
