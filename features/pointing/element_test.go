package pointing

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// A picked element is checked and bounded before anything keeps it: no
// selector and too many styles are refused with stable codes; its text and
// page are redacted, and its strings cut to the capture sizes.
func TestElementBound(t *testing.T) {
	if err := (&Element{}).Bound(); problem.From(err).Code != problem.InvalidParam {
		t.Errorf("no selector: %v", err)
	}
	many := map[string]string{}
	for i := range MaxStyles + 1 {
		many["p"+strconv.Itoa(i)] = "x"
	}
	if err := (&Element{Selector: "a", Styles: many}).Bound(); problem.From(err).Code != problem.TooLarge {
		t.Errorf("%d styles: %v", len(many), err)
	}
	e := Element{
		Selector: strings.Repeat("s", capture.MaxText*6),
		Text:     "token=supersecretvalue123 " + strings.Repeat("t", capture.MaxText*3),
		Page:     "https://app.test/?access_token=abc123",
		Styles:   map[string]string{"color": strings.Repeat("c", 500)},
	}
	if err := e.Bound(); err != nil {
		t.Fatal(err)
	}
	if len(e.Selector) > capture.MaxText*5+8 || len(e.Text) > capture.MaxText+8 || len(e.Styles["color"]) > 208 {
		t.Errorf("not cut: selector %d, text %d, style %d", len(e.Selector), len(e.Text), len(e.Styles["color"]))
	}
	if strings.Contains(e.Text, "supersecretvalue123") || strings.Contains(e.Page, "abc123") {
		t.Errorf("not redacted: %q %q", e.Text[:40], e.Page)
	}
}
