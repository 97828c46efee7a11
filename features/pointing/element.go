package pointing

import (
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/redact"
)

// Element is an element the human picked in the page (POST /point).
type Element struct {
	Selector string            `json:"selector"`
	Tag      string            `json:"tag,omitempty"`
	Text     string            `json:"text,omitempty"`
	Box      Box               `json:"box"`
	Styles   map[string]string `json:"styles,omitempty"`
	Page     string            `json:"page,omitempty"`
	Tab      int               `json:"tab,omitempty"`
	// Screenshot is sent as a data:image/png URL and kept as a file of the
	// screenshots folder, which the AI reads by its name.
	Screenshot string `json:"screenshot,omitempty"`
	// ScreenshotSkipped says why there is no screenshot, when there is none.
	ScreenshotSkipped string `json:"screenshot_skipped,omitempty"`
}

// Box is an element's bounding box in CSS pixels of the viewport.
type Box struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// MaxStyles bounds the computed styles an element carries.
const MaxStyles = 64

// Bound checks a picked element and bounds what the page wrote in it: any
// process of the user can send the extension's Origin, so its text and
// page URL are redacted like captured entries and every string is cut to
// the capture sizes before it reaches the board, the AI or the disk.
func (e *Element) Bound() error {
	if e.Selector == "" {
		return problem.New(problem.InvalidParam, `want {"element": {"selector": …, "box": …}}`)
	}
	e.Selector = capture.Truncate(e.Selector, capture.MaxText*5)
	e.Text = capture.Truncate(redact.Message(capture.Truncate(e.Text, capture.MaxText*2)), capture.MaxText)
	e.Page = capture.Truncate(redact.URL(e.Page), capture.MaxURL)
	if len(e.Styles) > MaxStyles {
		return problem.New(problem.TooLarge, "styles: %d properties, at most %d", len(e.Styles), MaxStyles)
	}
	for k, v := range e.Styles {
		e.Styles[k] = capture.Truncate(v, 200)
	}
	e.ScreenshotSkipped = capture.Truncate(e.ScreenshotSkipped, capture.MaxText)
	return nil
}
