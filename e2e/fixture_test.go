//go:build e2e

package e2e

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// fixtureServer serves testdata/fixtures plus the APIs and WebSocket echo
// the fixture pages call.
func fixtureServer(t testing.TB) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/api/ok", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "cookie-secret"})
		fmt.Fprint(w, `{"ok":true,"items":[1,2,3]}`)
	})
	// greet.html's API: a greeting for the names posted.
	mux.HandleFunc("POST /api/greet", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ First, Last string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"greeting": "Hello, " + in.First + " " + in.Last})
	})
	mux.HandleFunc("/api/fail", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":"db down"}`)
	})
	// /api/dropped closes the connection without an answer: the page's fetch fails, and only the
	// browser says why (net::ERR_EMPTY_RESPONSE).
	mux.HandleFunc("/api/dropped", func(w http.ResponseWriter, r *http.Request) {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	})
	mux.HandleFunc("/api/xhr", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "xhr-body")
	})
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			typ, b, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if c.Write(r.Context(), typ, append([]byte("echo:"), b...)) != nil {
				return
			}
		}
	})
	// An httpOnly session cookie, and a page that echoes the cookies it got.
	mux.HandleFunc("/api/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "server-secret", Path: "/", HttpOnly: true})
		fmt.Fprint(w, "ok")
	})
	mux.HandleFunc("/api/cookies", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, r.Header.Get("Cookie"))
	})
	// secrets.html: an echo of what was sent, and a token in a response body.
	mux.HandleFunc("/api/echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "got it")
	})
	mux.HandleFunc("/api/token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"resp-tok-SECRET5","token_type":"bearer","expires_in":3600}`)
	})
	// bodies.html: the body asked for, of the type asked for, repeated, with
	// no Content-Length (chunked) if asked.
	mux.HandleFunc("/api/body", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		w.Header().Set("Content-Type", cmp.Or(q.Get("type"), "application/json"))
		body := q.Get("body")
		if n, _ := strconv.Atoi(q.Get("repeat")); n > 0 {
			body = strings.Repeat(body, n)
		}
		if q.Has("chunked") {
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, body)
	})
	// An answer whose headers wait ms milliseconds (the query's, or a POST's body): a request's
	// "wait" phase.
	mux.HandleFunc("/api/slow", func(w http.ResponseWriter, r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		if b, _ := io.ReadAll(io.LimitReader(r.Body, 16)); len(b) > 0 {
			ms, _ = strconv.Atoi(string(b))
		}
		select {
		case <-r.Context().Done():
		case <-time.After(time.Duration(ms) * time.Millisecond):
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"waited_ms":%d}`, ms)
	})
	// The page benchmark's JSON API and the small resources of its load page.
	mux.HandleFunc("/api/bench-echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.Copy(w, io.LimitReader(r.Body, 1<<16))
	})
	// hang.html never finishes loading: its image is never answered.
	mux.HandleFunc("/hang.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Never loads</title><h1 id="h">still loading</h1><script>console.log("still-loading")</script><img src="/hang.png">`)
	})
	// pushed.html moves itself with history.pushState before its load.
	mux.HandleFunc("/pushed.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Pushed</title><script>history.pushState({}, "", "/pushed.html?step=2")</script><h1>pushed</h1>`)
	})
	// early-leave.html logs an error and a line, makes a request, reads its answer and leaves,
	// long before its load (which never ends).
	mux.HandleFunc("/early-leave.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Leaves early</title><script>
console.error("early-leave-error");
console.log("early-leave-log");
fetch("/api/ok?early=1&token=s3cr3t-early").then((r) => r.text()).then(() => { location.href = "/dom.html"; });
</script><img src="/hang.png">`)
	})
	// listening.html records every message event and hello its window gets, from its first line on.
	mux.HandleFunc("/listening.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Listening</title><script>
window.__seen = [];
addEventListener("message", (e) => __seen.push(JSON.stringify(e.data) + " ports:" + e.ports.length), true);
addEventListener("gasoline-hello", (e) => __seen.push("hello " + String(e.relatedTarget)), true);
console.error("listening-page");
</script><h1>listening</h1>`)
	})
	mux.HandleFunc("/hang.png", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	mux.HandleFunc("/res/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store") // every page load fetches all of them
		switch filepath.Ext(r.URL.Path) {
		case ".js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprintf(w, "window.__res = (window.__res || 0) + 1; // %s\n", r.URL.Path)
		case ".css":
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprintf(w, "/* %s */ .r { margin: 0 }\n", r.URL.Path)
		default:
			w.Header().Set("Content-Type", "image/svg+xml")
			fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>`)
		}
	})
	// streaming.html: /api/save answers its first call, then fails; /api/retry and /api/cancel always fail.
	var saves atomic.Int32
	mux.HandleFunc("/api/save", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if saves.Add(1) > 1 {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":"Internal server error"}`)
			return
		}
		fmt.Fprint(w, `{"saved":true}`)
	})
	failing := func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) }
	mux.HandleFunc("/api/retry", failing)
	mux.HandleFunc("/api/cancel", failing)
	// A page whose CSP forbids eval.
	mux.HandleFunc("/csp.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "script-src 'self'")
		fmt.Fprint(w, `<!doctype html><html><head><title>CSP</title></head><body><h1>strict</h1></body></html>`)
	})
	analysisRoutes(mux)
	replayRoutes(mux)
	// finder.html's API and script, and the switch a test flips to break the
	// API or slow the page (finder.js, slow.html): POST /fixture/switch?broken=1&delay_ms=600.
	var broken atomic.Bool
	var delay atomic.Int64
	mux.HandleFunc("/api/stations", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if broken.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":"stations offline"}`)
			return
		}
		city, _ := json.Marshal(r.URL.Query().Get("city"))
		fmt.Fprintf(w, `{"city":%s,"stations":[{"id":1,"name":"North","open":true},{"id":2,"name":"South","open":false}]}`, city)
	})
	mux.HandleFunc("/finder.js", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Duration(delay.Load()) * time.Millisecond)
		w.Header().Set("Cache-Control", "no-store")
		http.ServeFile(w, r, "../testdata/fixtures/finder.js")
	})
	// A page whose response waits out the delay too: its tab navigates,
	// not yet committed, for as long; /fixture/slow-waiting counts the
	// requests waiting.
	var slowWaiting atomic.Int64
	mux.HandleFunc("/fixture/slow-waiting", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, slowWaiting.Load())
	})
	mux.HandleFunc("/slow.html", func(w http.ResponseWriter, r *http.Request) {
		slowWaiting.Add(1)
		defer slowWaiting.Add(-1)
		select {
		case <-time.After(time.Duration(delay.Load()) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, `<!doctype html><html><head><title>Slow</title></head><body><h1>late</h1></body></html>`)
	})
	mux.HandleFunc("POST /fixture/switch", func(w http.ResponseWriter, r *http.Request) {
		broken.Store(r.URL.Query().Get("broken") == "1")
		ms, _ := strconv.Atoi(r.URL.Query().Get("delay_ms"))
		delay.Store(int64(ms))
	})
	testgenRoutes(mux)
	mux.Handle("/", http.FileServer(http.Dir("../testdata/fixtures")))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}
