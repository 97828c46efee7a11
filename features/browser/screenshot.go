package browser

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"strings"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// Screenshot limits and defaults.
const (
	DefaultShotWidth = 1024
	MinShotWidth     = 16
	MaxShotWidth     = 4096
	// MaxShotBytes bounds one image: it must fit the socket's frame as
	// base64 with room to spare, and an AI's context.
	MaxShotBytes = 3 << 20
	// MaxFullPageHeight caps a full-page screenshot, in CSS pixels.
	MaxFullPageHeight = 8000
	// ShotMargin is the CSS pixels kept around a selector's element.
	ShotMargin = 8
)

// ShotParams are the arguments of analyze{target:"screenshot"}.
type ShotParams struct {
	Selector string `json:"selector,omitempty"`
	FullPage bool   `json:"full_page,omitempty"`
	Format   string `json:"format"`    // jpeg or png
	MaxWidth int    `json:"max_width"` // image pixels
	Margin   int    `json:"margin,omitempty"`
	MaxPage  int    `json:"max_page_height,omitempty"`
}

// Check validates and fills in the defaults.
func (p *ShotParams) Check() error {
	p.Selector = strings.TrimSpace(p.Selector)
	if p.Selector != "" && p.FullPage {
		return problem.New(problem.InvalidParam, "selector and full_page exclude each other")
	}
	switch p.Format {
	case "":
		p.Format = "jpeg"
	case "jpeg", "png":
	default:
		return problem.New(problem.InvalidParam, "format must be jpeg or png")
	}
	if p.MaxWidth == 0 {
		p.MaxWidth = DefaultShotWidth
	}
	if p.MaxWidth < MinShotWidth || p.MaxWidth > MaxShotWidth {
		return problem.New(problem.InvalidParam, "max_width must be between %d and %d", MinShotWidth, MaxShotWidth)
	}
	if p.Selector != "" {
		p.Margin = ShotMargin
	}
	if p.FullPage {
		p.MaxPage = MaxFullPageHeight
	}
	return nil
}

// ShotAnswer is what the extension sends back: the encoded image and
// what it shows.
type ShotAnswer struct {
	URL     string `json:"url,omitempty"`
	Data    string `json:"data"`              // base64 of the image file
	Matched string `json:"matched,omitempty"` // the element the selector matched
	Count   int    `json:"count,omitempty"`   // how many elements matched
	Capped  int    `json:"capped,omitempty"`  // full page: the page's height when cut
}

// Shot is a checked screenshot: the decoded header says what the bytes
// are, whatever the extension claimed.
type Shot struct {
	URL           string
	MIME          string
	Bytes         []byte
	Width, Height int
	Matched       string
	Count         int
	Capped        int
}

// Decode checks the extension's answer: a JPEG or PNG of the asked
// format, within the byte and width limits.
func (a ShotAnswer) Decode(p ShotParams) (Shot, error) {
	if base64.StdEncoding.DecodedLen(len(a.Data)) > MaxShotBytes+3 {
		return Shot{}, problem.New(problem.TooLarge, "the screenshot is larger than %d bytes: use a smaller max_width, or format jpeg", MaxShotBytes)
	}
	b, err := base64.StdEncoding.DecodeString(a.Data)
	if err != nil || len(b) == 0 {
		return Shot{}, problem.New(problem.Internal, "the extension's screenshot could not be read")
	}
	var cfg image.Config
	mime := "image/" + p.Format
	if p.Format == "png" {
		cfg, err = png.DecodeConfig(bytes.NewReader(b))
	} else {
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(b))
	}
	if err != nil {
		return Shot{}, problem.New(problem.Internal, "the extension's screenshot is not a %s image: %v", p.Format, err)
	}
	if cfg.Width > p.MaxWidth {
		return Shot{}, problem.New(problem.Internal, "the extension's screenshot is %d pixels wide, over max_width %d", cfg.Width, p.MaxWidth)
	}
	return Shot{URL: a.URL, MIME: mime, Bytes: b, Width: cfg.Width, Height: cfg.Height,
		Matched: clip(a.Matched, 120), Count: a.Count, Capped: a.Capped}, nil
}

// Caption is the screenshot's one text line.
func (s Shot) Caption() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %dx%d px, %d bytes %s", s.URL, s.Width, s.Height, len(s.Bytes), strings.TrimPrefix(s.MIME, "image/"))
	if s.Matched != "" {
		fmt.Fprintf(&b, "; selector matched %s", s.Matched)
		if s.Count > 1 {
			fmt.Fprintf(&b, " (first of %d)", s.Count)
		}
	}
	if s.Capped > 0 {
		fmt.Fprintf(&b, "; page is %d px tall, cut at %d", s.Capped, MaxFullPageHeight)
	}
	return b.String()
}

// Line is the screenshot's audit line.
func (s Shot) Line() string {
	line := fmt.Sprintf("%dx%d %s %d B", s.Width, s.Height, strings.TrimPrefix(s.MIME, "image/"), len(s.Bytes))
	if s.Matched != "" {
		line += " " + s.Matched
	}
	return line
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
