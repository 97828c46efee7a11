package visual

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/problem"
)

func pngOf(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A check keeps the start, compares the page at compare with it and keeps
// both and their difference; a compare without a start takes no
// screenshot, and a screenshot that failed says why with its code.
func TestCheckStartAndCompare(t *testing.T) {
	d := NewDir(filepath.Join(t.TempDir(), "visual"))
	shots := 0
	shoot := func(img image.Image) func() ([]byte, error) {
		return func() ([]byte, error) { shots++; return pngOf(t, img), nil }
	}
	if c := d.Compared("s1", shoot(page(100, 50))); c.Error != "not_found: no screenshot was taken at start" || shots != 0 {
		t.Fatalf("compare before start: %+v, %d shots", c, shots)
	}
	start := d.Start("s1", shoot(page(100, 50)))
	if start.Error != "" || start.Start == "" || start.Brief() != "; visual: start taken" {
		t.Fatalf("start: %+v", start)
	}
	after := page(100, 50)
	fill(after, image.Rect(0, 0, 50, 50), color.Black)
	c := d.Compared("s1", shoot(after))
	if c.Error != "" || c.Result == nil || c.ChangedShare != 50 || c.Compare == "" || c.Diff == "" || c.Start != start.Start {
		t.Fatalf("compare: %+v", c)
	}
	if !strings.HasPrefix(c.Brief(), "; visual: 50.00% changed") {
		t.Errorf("brief: %q", c.Brief())
	}
	failed := d.Start("s2", func() ([]byte, error) { return nil, problem.New(problem.Timeout, "slow") })
	if !strings.HasPrefix(failed.Error, "timeout") || failed.Start != "" {
		t.Errorf("failed shot: %+v", failed)
	}
}
