package browser

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/problem"
)

func TestShotParamsDefaults(t *testing.T) {
	p := ShotParams{Selector: " #box "}
	if err := p.Check(); err != nil || p.Format != "jpeg" || p.MaxWidth != DefaultShotWidth || p.Selector != "#box" || p.Margin != ShotMargin || p.MaxPage != 0 {
		t.Fatalf("%v %+v", err, p)
	}
	full := ShotParams{FullPage: true, Format: "png", MaxWidth: 300}
	if err := full.Check(); err != nil || full.MaxPage != MaxFullPageHeight || full.Margin != 0 || full.MaxWidth != 300 {
		t.Fatalf("%v %+v", err, full)
	}
	for _, bad := range []ShotParams{{Format: "gif"}, {MaxWidth: 8}, {MaxWidth: MaxShotWidth + 1}, {Selector: "p", FullPage: true}} {
		if err := bad.Check(); code(err) != problem.InvalidParam {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func encoded(t *testing.T, w, h int, format string) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var b bytes.Buffer
	if format == "png" {
		png.Encode(&b, img)
	} else {
		jpeg.Encode(&b, img, nil)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestShotDecode(t *testing.T) {
	p := ShotParams{Format: "png", MaxWidth: 100}
	s, err := ShotAnswer{URL: "http://a.test/", Data: encoded(t, 80, 30, "png"), Matched: "div#box 80x30 at 1,2", Count: 3}.Decode(p)
	if err != nil || s.Width != 80 || s.Height != 30 || s.MIME != "image/png" || len(s.Bytes) == 0 {
		t.Fatalf("%v %+v", err, s)
	}
	if c := s.Caption(); !strings.Contains(c, "http://a.test/ 80x30 px,") || !strings.Contains(c, "div#box 80x30 at 1,2 (first of 3)") {
		t.Errorf("caption %q", c)
	}
	if l := s.Line(); !strings.HasPrefix(l, "80x30 png ") || !strings.HasSuffix(l, " div#box 80x30 at 1,2") {
		t.Errorf("line %q", l)
	}
	// What the bytes are decides, not what the extension said: a JPEG where PNG was asked is refused,
	// and so is an image wider than max_width, garbage, and too many bytes.
	for name, a := range map[string]ShotAnswer{
		"jpeg for png": {Data: encoded(t, 80, 30, "jpeg")},
		"too wide":     {Data: encoded(t, 101, 30, "png")},
		"not base64":   {Data: "%%%"},
		"not an image": {Data: base64.StdEncoding.EncodeToString([]byte("hello"))},
	} {
		if _, err := a.Decode(p); code(err) != problem.Internal {
			t.Errorf("%s: %v", name, err)
		}
	}
	huge := ShotAnswer{Data: strings.Repeat("A", base64.StdEncoding.EncodedLen(MaxShotBytes+64))}
	if _, err := huge.Decode(p); code(err) != problem.TooLarge {
		t.Errorf("huge: %v", err)
	}
	long := ShotAnswer{Data: encoded(t, 10, 10, "png"), Matched: strings.Repeat("x", 1000)}
	if s, _ := long.Decode(p); len(s.Matched) != 120 {
		t.Errorf("matched not clipped: %d", len(s.Matched))
	}
	capped, _ := ShotAnswer{Data: encoded(t, 10, 10, "png"), Capped: 12000}.Decode(p)
	if !strings.Contains(capped.Caption(), "page is 12000 px tall, cut at 8000") {
		t.Errorf("capped caption %q", capped.Caption())
	}
}
