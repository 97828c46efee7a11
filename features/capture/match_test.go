package capture

import (
	"testing"
	"time"
)

func TestBodyFor(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	at := func(d time.Duration) Time { return Time{t0.Add(d)} }
	req := NetworkEntry{TS: at(0), Method: "POST", URL: "/api/cart", Status: 200}
	bodies := []NetworkBody{
		{TS: at(100 * time.Millisecond), Method: "GET", URL: "/api/cart", Status: 200},     // other method
		{TS: at(50 * time.Millisecond), Method: "POST", URL: "/api/cart", Status: 500},     // other status
		{TS: at(900 * time.Millisecond), Method: "POST", URL: "/api/cart", Status: 200},    // a match
		{TS: at(-300 * time.Millisecond), Method: "POST", URL: "/api/cart"},                // nearer, status unknown
		{TS: at(3 * time.Second), Method: "POST", URL: "/api/cart", Status: 200},           // outside the window
		{TS: at(10 * time.Millisecond), Method: "POST", URL: "/api/cart?x=1", Status: 200}, // other URL
	}
	if got := BodyFor(req, bodies, nil); got != 3 {
		t.Errorf("BodyFor = %d, want 3 (the nearest agreeing body)", got)
	}
	used := make([]bool, len(bodies))
	used[3] = true
	if got := BodyFor(req, bodies, used); got != 2 {
		t.Errorf("with 3 used: %d, want 2", got)
	}
	used[2] = true
	if got := BodyFor(req, bodies, used); got != -1 {
		t.Errorf("with 2 and 3 used: %d, want -1 (the rest disagree or are too far)", got)
	}
}
