package har

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Two loads of one page in one tab, and a load of it in another tab, are
// three pages, each with the requests made in it and the timings its page
// measured; a page load whose document is not held still groups its
// requests and takes its timings.
func TestBuildMakesAPagePerLoad(t *testing.T) {
	shop := "http://localhost:3000/shop"
	net := func(ms, tab int, typ, url string, status int) capture.NetworkEntry {
		return capture.NetworkEntry{TS: at(ms), Method: "GET", URL: url, Status: status, DurationMS: 5, Type: typ, TabID: tab, Page: shop}
	}
	network := []capture.NetworkEntry{
		net(0, 1, "document", shop, 200),
		net(40, 1, "script", "http://localhost:3000/app.js", 404),
		net(45, 1, "image", "http://localhost:3000/hero.png", 404),
		net(90, 1, "fetch", "http://localhost:3000/api/cart", 500),
		net(5000, 1, "document", shop, 200),
		net(5040, 1, "image", "http://localhost:3000/hero.png", 404),
		net(5100, 2, "document", shop+"#top", 200),
		net(5150, 2, "fetch", "http://localhost:3000/api/cart", 200),
	}
	// An older load on tab 3, its document evicted: its fetch alone.
	other := "http://localhost:3000/other"
	network = append(network, capture.NetworkEntry{TS: at(-20000), Method: "POST", URL: "http://localhost:3000/api/x", Status: 201, Type: "xhr", TabID: 3, Page: other})
	loads := []Load{
		{Tab: 1, URL: shop, Start: at(-3).Time, OnContentLoad: 87, OnLoad: 140},
		{Tab: 1, URL: shop, Start: at(4998).Time, OnContentLoad: 60},
		{Tab: 3, URL: other, Start: at(-20500).Time, OnContentLoad: 30, OnLoad: 50},
		{Tab: 3, URL: other, Start: at(-10000).Time, OnContentLoad: 1, OnLoad: 2}, // a later load: not its page's
	}
	l := Build(network, nil, Options{Loads: loads})
	b, _ := json.Marshal(l)
	if err := validate(t, b); err != nil {
		t.Fatalf("not valid HAR 1.2: %v\n%s", err, b)
	}
	type pg struct {
		start       string
		title       string
		dcl, onLoad float64
	}
	var got []pg
	for _, p := range l.Log.Pages {
		got = append(got, pg{p.StartedDateTime, p.Title, p.PageTimings.OnContentLoad, p.PageTimings.OnLoad})
	}
	want := []pg{
		{stamp(at(-20500).Time), other, 30, 50},
		{stamp(at(0).Time), shop, 84, 137},
		{stamp(at(5000).Time), shop, 58, -1},
		{stamp(at(5100).Time), shop + "#top", -1, -1},
	}
	if len(got) != len(want) {
		t.Fatalf("pages %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("page %d: %+v, want %+v", i+1, got[i], want[i])
		}
		if l.Log.Pages[i].ID != pageID(i) {
			t.Errorf("page %d has id %s", i+1, l.Log.Pages[i].ID)
		}
	}
	refs := map[string][]string{}
	for _, e := range l.Log.Entries {
		refs[e.PageRef] = append(refs[e.PageRef], e.Request.URL)
	}
	wantRefs := map[string][]string{
		"page_1": {"http://localhost:3000/api/x"},
		"page_2": {shop, "http://localhost:3000/app.js", "http://localhost:3000/hero.png", "http://localhost:3000/api/cart"},
		"page_3": {shop, "http://localhost:3000/hero.png"},
		"page_4": {shop + "#top", "http://localhost:3000/api/cart"},
	}
	if mustJSONString(refs) != mustJSONString(wantRefs) {
		t.Errorf("entries by page:\n%v\nwant\n%v", refs, wantRefs)
	}
}

// A redirect's hop does not start a page: it is the page whose URL it names.
func TestBuildRedirectHopIsNoPage(t *testing.T) {
	network := []capture.NetworkEntry{
		{TS: at(0), Method: "GET", URL: "http://a.test/old", Status: 301, Type: "document", TabID: 1, Page: "http://a.test/old"},
		{TS: at(10), Method: "GET", URL: "http://a.test/new", Status: 200, Type: "document", TabID: 1, Page: "http://a.test/new"},
	}
	l := Build(network, nil, Options{})
	if len(l.Log.Pages) != 2 || l.Log.Pages[1].Title != "http://a.test/new" || l.Log.Entries[1].PageRef != "page_2" {
		t.Fatalf("pages %+v entries %+v", l.Log.Pages, l.Log.Entries)
	}
	if since(at(0).Time, at(0).Time.Add(-time.Millisecond), 0) != -1 {
		t.Error("a time not measured is -1")
	}
}

func mustJSONString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
