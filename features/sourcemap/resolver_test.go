package sourcemap

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// site serves the esbuild output in testdata (src/{cart,pricing,report,main}.ts
// bundled and minified; see testdata/fixtures/sourcemap-app) and counts
// requests per path.
type site struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newSite(t *testing.T, routes map[string]func(w http.ResponseWriter)) *site {
	s := &site{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		if h := routes[r.URL.Path]; h != nil {
			h(w)
			return
		}
		http.ServeFile(w, r, "testdata"+strings.TrimPrefix(r.URL.Path, "/dist"))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) hit(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p]
}

// The stacks Chromium gives for the fixture's three errors (positions from
// running the bundle in V8).
func stacks(base string) []Stack {
	u := base + "/dist/app.js"
	return []Stack{
		on(base, "TypeError: Cannot read properties of undefined (reading 'rate')\n    at m ("+u+":1:79)\n    at n ("+u+":1:119)\n    at l ("+u+":1:516)"),
		on(base, "    at a ("+u+":1:232)\n    at i ("+u+":1:285)"),
		on(base, "p@"+u+":1:361\nu@"+u+":1:447\n@"+u+":1:618"), // Firefox's form
	}
}

// on is a stack from a page at base.
func on(base, stack string) Stack { return Stack{Page: base + "/index.html", Frames: Parse(stack)} }

func TestResolveExternalMap(t *testing.T) {
	s := newSite(t, nil)
	r := New(Config{})
	got := r.Resolve(context.Background(), stacks(s.URL))
	origin := s.URL
	want := []string{
		"TypeError: Cannot read properties of undefined (reading 'rate')\napplyCoupon /src/cart.ts:9:35\ncheckout :14:17\nonCheckoutClick /src/main.ts:9:3",
		"fetchPrices /src/pricing.ts:6:25\nrefreshPrices :10:3",
		"reportTotal /src/report.ts:4:19\nsummarize :10:3\n/src/main.ts:15:34",
	}
	for i, w := range want {
		if r := Render(got[i], origin); r.Stack != w {
			t.Errorf("stack %d:\n%s\nwant\n%s", i, r.Stack, w)
		}
	}
	code := Render(got[0], origin).Code
	if code != "8: const subtotal = cart.items.reduce((sum, item) => sum + item.price, 0);\n9: const rate = cart.coupons[code].rate;\n10: return subtotal * (1 - rate);" {
		t.Errorf("code:\n%s", code)
	}
	// Read once: the script and its map, whatever the number of frames and calls.
	r.Resolve(context.Background(), stacks(s.URL))
	if s.hit("/dist/app.js") != 1 || s.hit("/dist/app.js.map") != 1 {
		t.Errorf("hits %v", s.hits)
	}
	if st := r.Stats(); st.Maps != 1 || st.Bytes <= 3228 || len(st.Failures) != 0 {
		t.Errorf("stats %+v", st)
	}
}

// public is a client that reaches the test site under a public name.
func public(s *site) *http.Client {
	addr := strings.TrimPrefix(s.URL, "http://")
	c := newClient(5 * time.Second)
	c.Transport = &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	return c
}

func TestOnlyAllowedOriginsAreRead(t *testing.T) {
	s := newSite(t, nil)
	r := New(Config{Client: public(s)})
	const base = "http://app.example.com"
	got := r.Resolve(context.Background(), stacks(base))
	if got[0][1].Mapped || s.hit("/dist/app.js") != 0 || s.hit("/dist/app.js.map") != 0 {
		t.Fatalf("a public origin was read before the human allowed it: %v %v", got[0][1], s.hits)
	}
	st := r.Stats()
	if len(st.Failures) != 1 || st.Failures[0].Script != base+"/dist/app.js" || !strings.Contains(st.Failures[0].Reason, "not allowed") {
		t.Fatalf("failures %+v", st.Failures)
	}
	if Render(got[0], base).Stack != "TypeError: Cannot read properties of undefined (reading 'rate')\nm /dist/app.js:1:79\nn :1:119\nl :1:516" {
		t.Errorf("unresolved stack: %q", Render(got[0], base).Stack)
	}
	r.SetAllowed([]string{"http://APP.example.com/", "not an origin"})
	if a := r.Allowed(); len(a) != 1 || a[0] != base {
		t.Fatalf("allowed %v", a)
	}
	got = r.Resolve(context.Background(), stacks(base))
	if !got[0][1].Mapped || got[0][1].Source != base+"/src/cart.ts" || len(r.Stats().Failures) != 0 {
		t.Fatalf("allowed origin not resolved: %+v %+v", got[0][1], r.Stats())
	}
}

// A map elsewhere than the script's origin is never read, whoever serves it.
func TestMapOnAnotherOriginIsNotRead(t *testing.T) {
	other := newSite(t, nil)
	s := newSite(t, map[string]func(w http.ResponseWriter){
		"/dist/app.js": func(w http.ResponseWriter) {
			fmt.Fprintf(w, "(()=>{})();\n//# sourceMappingURL=%s/dist/app.js.map\n", other.URL)
		},
	})
	r := New(Config{})
	got := r.Resolve(context.Background(), stacks(s.URL))
	if got[0][1].Mapped || other.hit("/dist/app.js.map") != 0 {
		t.Fatalf("cross-origin map read: %v", other.hits)
	}
	if f := r.Stats().Failures; len(f) != 1 || !strings.Contains(f[0].Reason, "not on the script's origin") {
		t.Fatalf("failures %+v", f)
	}
}

func TestInlineMapAndHeader(t *testing.T) {
	inline, _ := os.ReadFile("testdata/inline.js")
	app, _ := os.ReadFile("testdata/app.js")
	s := newSite(t, map[string]func(w http.ResponseWriter){
		"/dist/app.js": func(w http.ResponseWriter) { w.Write(inline) },
		"/hdr/app.js": func(w http.ResponseWriter) {
			w.Header().Set("SourceMap", "/dist/app.js.map")
			w.Write([]byte(strings.Replace(string(app), "sourceMappingURL=app.js.map", "sourceMappingURL=wrong.map", 1)))
		},
	})
	r := New(Config{})
	got := r.Resolve(context.Background(), stacks(s.URL))
	if w := "applyCoupon /src/cart.ts:9:35"; !strings.Contains(Render(got[0], s.URL).Stack, w) {
		t.Errorf("inline: %s", Render(got[0], s.URL).Stack)
	}
	hdr := on(s.URL, "    at m ("+s.URL+"/hdr/app.js:1:79)\n    at n ("+s.URL+"/hdr/app.js:1:119)")
	got = r.Resolve(context.Background(), []Stack{hdr})
	if !got[0][0].Mapped || got[0][0].Source != s.URL+"/src/cart.ts" || s.hit("/wrong.map") != 0 {
		t.Errorf("header: %+v %v", got[0][0], s.hits)
	}
}

// A map that cannot be read leaves the frames as they were and says why,
// once per script; the failure is remembered, not fetched on every read.
func TestFailuresSayWhyOnce(t *testing.T) {
	big := strings.Repeat(" ", MaxMap+1)
	s := newSite(t, map[string]func(w http.ResponseWriter){
		"/big/app.js":     func(w http.ResponseWriter) { w.Write([]byte("x()\n//# sourceMappingURL=app.js.map")) },
		"/big/app.js.map": func(w http.ResponseWriter) { w.Write([]byte(big)) },
		"/bad/app.js":     func(w http.ResponseWriter) { w.Write([]byte("x()\n//# sourceMappingURL=app.js.map")) },
		"/bad/app.js.map": func(w http.ResponseWriter) { w.Write([]byte(`{"version":3,"mappings":"!!"}`)) },
		"/gone/app.js":    func(w http.ResponseWriter) { w.WriteHeader(404) },
	})
	var st []Stack
	for _, p := range []string{"big", "bad", "gone"} {
		st = append(st, on(s.URL, "    at f ("+s.URL+"/"+p+"/app.js:1:2)\n    at g ("+s.URL+"/"+p+"/app.js:1:3)"))
	}
	r := New(Config{})
	for range 3 {
		for _, rs := range r.Resolve(context.Background(), st) {
			if rs[0].Mapped || Render(rs, s.URL).Stack == "" {
				t.Fatalf("%+v", rs)
			}
		}
	}
	f := r.Stats().Failures
	why := map[string]string{}
	for _, x := range f {
		why[strings.Split(strings.TrimPrefix(x.Script, s.URL+"/"), "/")[0]] = x.Reason
	}
	if len(f) != 3 || !strings.Contains(why["big"], "limit") || !strings.Contains(why["bad"], "malformed") || !strings.Contains(why["gone"], "404") {
		t.Fatalf("failures %+v", f)
	}
	if s.hit("/big/app.js.map") != 1 || s.hit("/gone/app.js") != 1 {
		t.Errorf("failed reads repeated: %v", s.hits)
	}
}

// The cache holds maps up to its byte budget, the least recently used
// going first; a script read again after Fresh with new content brings its
// new map.
func TestCacheBoundAndRebuild(t *testing.T) {
	m, _ := os.ReadFile("testdata/app.js.map")
	app, _ := os.ReadFile("testdata/app.js")
	var mu sync.Mutex
	version := 1
	routes := map[string]func(w http.ResponseWriter){}
	for _, p := range []string{"a", "b", "c"} {
		routes["/"+p+"/app.js"] = func(w http.ResponseWriter) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(w, "%s\n// build %d", app, version)
		}
		routes["/"+p+"/app.js.map"] = func(w http.ResponseWriter) { w.Write(m) }
	}
	s := newSite(t, routes)
	now := time.Unix(0, 0)
	var r *Resolver
	read := func(p string) {
		r.Resolve(context.Background(), []Stack{on(s.URL, "at m ("+s.URL+"/"+p+"/app.js:1:79)")})
	}
	r = New(Config{})
	read("a")
	one := r.Stats().Bytes
	r = New(Config{CacheBytes: 2*one + 100, Now: func() time.Time { return now }})
	read("a")
	read("b")
	read("a")
	read("c") // evicts b, the least recently used
	if st := r.Stats(); st.Maps != 2 || st.Evicted != 1 || st.Bytes != 2*one {
		t.Fatalf("stats %+v", st)
	}
	read("a")
	read("b")
	if s.hit("/a/app.js.map") != 2 || s.hit("/b/app.js.map") != 2 {
		t.Fatalf("hits %v", s.hits)
	}
	now = now.Add(2 * time.Minute)
	read("b") // unchanged: the script is read again, not the map
	if s.hit("/b/app.js") != 3 || s.hit("/b/app.js.map") != 2 {
		t.Fatalf("hits %v", s.hits)
	}
	mu.Lock()
	version = 2
	mu.Unlock()
	now = now.Add(2 * time.Minute)
	read("b")
	if s.hit("/b/app.js.map") != 3 {
		t.Fatalf("a rebuilt script's map was not read again: %v", s.hits)
	}
}

// A page on an origin that is not allowed gets no script read, even one on
// the developer's machine: its stack's URLs are its own to write.
func TestPublicPageCannotSteerReads(t *testing.T) {
	s := newSite(t, nil)
	r := New(Config{})
	st := Stack{Page: "https://evil.example/", Frames: Parse("at f (" + s.URL + "/dist/app.js:1:79)")}
	if got := r.Resolve(context.Background(), []Stack{st}); got[0][0].Mapped || s.hit("/dist/app.js") != 0 {
		t.Fatalf("a public page's stack was read: %v", s.hits)
	}
	if f := r.Stats().Failures; len(f) != 1 || !strings.Contains(f[0].Reason, "https://evil.example is not allowed") {
		t.Fatalf("failures %+v", f)
	}
	r.Prefetch(st)
	// An inline script's frame is the page itself: never fetched again.
	r.Resolve(context.Background(), []Stack{{Page: s.URL + "/cb?code=1#x", Frames: Parse("at f (" + s.URL + "/cb?code=1:3:4)")}})
	if s.hit("/cb") != 0 {
		t.Fatalf("the page itself was fetched: %v", s.hits)
	}
	many := Stack{Page: s.URL + "/"}
	for i := range 100 {
		many.Frames = append(many.Frames, Parse(fmt.Sprintf("at f (%s/x%d.js:1:1)", s.URL, i))...)
	}
	r.Resolve(context.Background(), []Stack{many})
	n := 0
	for p := range s.hits {
		if strings.HasPrefix(p, "/x") {
			n++
		}
	}
	if n != MaxScriptsPerRead {
		t.Errorf("%d scripts read for one read, want %d", n, MaxScriptsPerRead)
	}
}

// An arriving error's maps are read before the AI asks.
func TestPrefetch(t *testing.T) {
	s := newSite(t, nil)
	r := New(Config{})
	r.Prefetch(stacks(s.URL)[0])
	read := wait.Until(10*time.Second, func() bool { return r.Stats().Maps == 1 })
	if !read || s.hit("/dist/app.js.map") != 1 {
		t.Fatalf("not prefetched: %+v %v", r.Stats(), s.hits)
	}
	if got := r.Resolve(context.Background(), stacks(s.URL)); !got[0][1].Mapped || s.hit("/dist/app.js.map") != 1 {
		t.Fatalf("prefetched map not used: %v", s.hits)
	}
}

// A script that redirects to another origin is not followed there.
func TestRedirectStaysOnTheOrigin(t *testing.T) {
	other := newSite(t, nil)
	s := newSite(t, map[string]func(w http.ResponseWriter){
		"/dist/app.js": func(w http.ResponseWriter) {
			w.Header().Set("Location", other.URL+"/dist/app.js")
			w.WriteHeader(http.StatusFound)
		},
	})
	r := New(Config{})
	if got := r.Resolve(context.Background(), stacks(s.URL)); got[0][1].Mapped || other.hit("/dist/app.js") != 0 {
		t.Fatalf("followed a redirect to another origin: %v", other.hits)
	}
	if f := r.Stats().Failures; len(f) != 1 || !strings.Contains(f[0].Reason, "another origin") {
		t.Fatalf("failures %+v", f)
	}
}
