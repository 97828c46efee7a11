package origins

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestIsExtension(t *testing.T) {
	for o, want := range map[string]bool{
		"moz-extension://6f1d3c2a-9b7e-4c55-8a10-3d2f0e4b7c91":     true,
		"chrome-extension://nfadohinhmepekandhojgchganbcflen":      true,
		"http://127.0.0.1:3000":                                    false,
		"null":                                                     false,
		"moz-extension://6f1d3c2a-9b7e-4c55-8a10-3d2f0e4b7c91/x":   false,
		"moz-extension://6f1d3c2a-9b7e-4c55-8a10-3d2f0e4b7c91:80":  false,
		"moz-extension://short":                                    false,
		"moz-extension://0123456789abcdef":                         true,
		"moz-extension://0123456789abcde":                          false,
		"chrome-extension://" + strings.Repeat("a", 64):            true,
		"chrome-extension://" + strings.Repeat("a", 65):            false,
		"chrome-extension://NFADOHINHMEPEKANDHOJGCHGANBCFLEN":      false,
		"chrome-extension://nfadohinhmepekandhojgchganbcfle_":      false,
		"https://nfadohinhmepekandhojgchganbcflen":                 false,
		"xmoz-extension://0123456789abcdef":                        false,
		"chrome-extension://nfadohinhmepekandhojgchganbcflen.evil": false,
	} {
		if IsExtension(o) != want {
			t.Errorf("IsExtension(%q) = %v", o, !want)
		}
	}
}

func TestBrowser(t *testing.T) {
	for ua, want := range map[string]string{
		"Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0":                                                    "Firefox 153",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0": "Edge 131",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36":                     "Chrome 142",
		"":                "unknown browser",
		"curl/8.0\x1b[2J": "curl/8.0[2J",
	} {
		if got := Browser(ua); got != want {
			t.Errorf("Browser(%q) = %q, want %q", ua, got, want)
		}
	}
}

// Waiting origins are bounded and listed once; an answer ends the wait,
// is remembered (bounded too), and can be taken back.
func TestTrust(t *testing.T) {
	now := time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)
	tr := New(func() time.Time { return now })
	var views []View
	tr.OnChange(func(v View) { views = append(views, v) })
	origin := func(i int) string { return fmt.Sprintf("moz-extension://00000000-0000-0000-0000-%012d", i) }
	if v, added := tr.Check("https://evil.example", "x"); v != NotExtension || added {
		t.Fatalf("web origin: %v %v", v, added)
	}
	for i := range MaxPending + 2 {
		if v, _ := tr.Check(origin(i), "Firefox/153.0"); v != Waiting {
			t.Fatalf("origin %d: %v", i, v)
		}
	}
	if _, fresh := tr.Check(origin(9), "Firefox/153.0"); fresh {
		t.Fatal("listed twice")
	}
	if p := tr.View().Pending; len(p) != MaxPending || p[0].Origin != origin(2) || p[0].Browser != "Firefox 153" || !p[0].At.Equal(now) {
		t.Fatalf("pending: %+v", p)
	}
	if len(views) != MaxPending+2 {
		t.Fatalf("%d change notices, want %d", len(views), MaxPending+2)
	}
	if b, err := tr.Decide(origin(2), true); err != nil || b != "Firefox 153" {
		t.Fatalf("decide: %q %v", b, err)
	}
	if tr.Verdict(origin(2)) != Accepted || len(tr.View().Pending) != MaxPending-1 {
		t.Fatal("accepting did not end the wait")
	}
	if _, err := tr.Decide("http://evil.example", true); err != ErrNotExtension {
		t.Fatalf("web origin decided: %v", err)
	}
	tr.Decide(origin(2), false)
	if tr.Verdict(origin(2)) != Refused || len(tr.Decided()) != 1 || tr.Decided()[0].Browser != "Firefox 153" {
		t.Fatalf("taking it back: %+v", tr.Decided())
	}
	for i := range MaxDecided + 5 {
		tr.Decide(origin(100+i), true)
	}
	if d := tr.Decided(); len(d) != MaxDecided || d[len(d)-1].Origin != origin(100+MaxDecided+4) {
		t.Fatalf("decided not bounded to the newest %d: %d", MaxDecided, len(d))
	}
	fresh := New(nil)
	fresh.Restore(append(tr.Decided(), Decision{Origin: "http://evil.example", Accepted: true}))
	if len(fresh.Decided()) != MaxDecided || fresh.Verdict(origin(100+MaxDecided+4)) != Accepted {
		t.Fatal("restore")
	}
}

// Issue 41: eight forged moz-extension origins then a real install: the
// real one is listed (the least recently heard forged one makes room, on
// the count), forged ones that never call again expire, and the other kind
// keeps its own room.
func TestPendingExpireAndKeepTheNewest(t *testing.T) {
	now := time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC)
	tr := New(func() time.Time { return now })
	forged := func(i int) string { return fmt.Sprintf("moz-extension://00000000-0000-0000-0000-%012d", i) }
	for i := range MaxPending {
		if _, fresh := tr.Check(forged(i), "curl/8"); !fresh {
			t.Fatalf("forged %d not fresh", i)
		}
	}
	chrome := "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
	if _, fresh := tr.Check(chrome, "Chrome/142.0"); !fresh {
		t.Fatal("the other kind had no room")
	}
	now = now.Add(time.Minute)
	firstSeen := now
	real := "moz-extension://6f1d3c2a-9b7e-4c55-8a10-3d2f0e4b7c91"
	if v, fresh := tr.Check(real, "Firefox/153.0"); v != Waiting || fresh {
		t.Fatalf("the real one: %v fresh %v", v, fresh)
	}
	v := tr.View()
	listed := func(o string) bool {
		return slices.ContainsFunc(v.Pending, func(r Request) bool { return r.Origin == o })
	}
	if !listed(real) || listed(forged(0)) || !listed(chrome) || v.Evicted != 1 || len(v.Pending) != MaxPending+1 {
		t.Fatalf("pending %+v", v)
	}
	// The real one keeps calling; the forged ones do not.
	for range 3 {
		now = now.Add(PendingTTL / 2)
		tr.Check(real, "Firefox/153.0")
	}
	v = tr.View()
	if len(v.Pending) != 1 || v.Pending[0].Origin != real || v.Pending[0].Browser != "Firefox 153" || !v.Pending[0].At.Equal(firstSeen) {
		t.Fatalf("after the TTL: %+v", v.Pending)
	}
}
