package sourcemap

import (
	"context"
	"strings"
	"testing"
)

// Place gives each error its stack and code at the original sources; the
// source is left out when it is the stack's first frame, placed when it is
// another position, and kept as given when no map places it.
func TestPlaceStacksAndSources(t *testing.T) {
	s := newSite(t, nil)
	u := s.URL + "/dist/app.js"
	page := s.URL + "/index.html"
	got := New(Config{}).Place(context.Background(), []Thrown{
		{Page: page, Stack: "TypeError: x\n    at m (" + u + ":1:79)", Source: u + ":1:79"},
		{Page: page, Source: u + ":1:232"},
		{Page: page, Stack: "    at f (https://cdn.example.com/lib.js:1:2)", Source: "https://cdn.example.com/lib.js:9:9"},
	})
	if got[0].Stack != "TypeError: x\napplyCoupon /src/cart.ts:9:35" || got[0].Source != "" ||
		!strings.Contains(got[0].Code, "9: const rate = cart.coupons[code].rate;") {
		t.Errorf("thrown at its first frame: %+v", got[0])
	}
	if got[1].Source != "/src/pricing.ts:6:25" || got[1].Code == "" {
		t.Errorf("a source without a stack: %+v", got[1])
	}
	if got[2].Source != "https://cdn.example.com/lib.js:9:9" || got[2].Code != "" {
		t.Errorf("a source no map places: %+v", got[2])
	}
}
