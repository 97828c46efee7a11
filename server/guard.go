package server

import (
	"net"
	"net/http"
	"strconv"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// ExtensionID is Gasoline's extension id, pinned by the key in its manifest.
const ExtensionID = "nfadohinhmepekandhojgchganbcflen"

// ExtensionOrigin is the Chrome build's origin, the one browser origin the
// server answers without asking; other extension origins wait for the
// human (origins.go).
const ExtensionOrigin = "chrome-extension://" + ExtensionID

// MaxBody caps every request body.
const MaxBody = 5 << 20

// guard enforces the security model on every route: a loopback Host naming
// our port (DNS rebinding), no web-page Origin (a hostile tab in the same
// browser), the extension's Origin (or one the human accepted) on the
// extension's routes, a capped
// body. It sends no CORS headers at all, so a page can
// never read an answer either.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.loopbackHost(r.Host) {
			writeProblem(w, problem.New(problem.Forbidden, "Host %q is not this server's loopback address", r.Host))
			return
		}
		o, ok := r.Header["Origin"]
		fromExtension := false
		if ok {
			if len(o) != 1 {
				writeProblem(w, problem.New(problem.Forbidden, "a request with %d Origin headers is refused", len(o)))
				return
			}
			var refused *problem.Error
			if fromExtension, refused = s.origins.check(r, o[0]); refused != nil {
				writeProblem(w, refused)
				return
			}
		}
		if !fromExtension && extensionOnly(r) {
			writeProblem(w, problem.New(problem.Forbidden, "%s is the extension's: a request without its Origin is refused", r.URL.Path))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		next.ServeHTTP(w, r)
	})
}

func (s *Server) loopbackHost(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || port != strconv.Itoa(s.Port()) {
		return false
	}
	switch host {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}

// extensionOnly is what only the extension may do: take queries, answer
// them, hold the push socket, report the pilot's toggle, write screenshots
// to disk. A page's <img> or
// a no-cors GET carries no Origin at all, so a missing Origin is refused
// here like a foreign one.
func extensionOnly(r *http.Request) bool {
	switch r.URL.Path {
	case "/pending-queries", "/query-results", "/ws/extension", "/screenshots", "/point":
		return true
	}
	return r.URL.Query().Has("pilot")
}
