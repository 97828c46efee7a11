package server

import (
	"net"
	"net/http"
	"strconv"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// ExtensionID is Gasoline's extension id, pinned by the key in its manifest.
const ExtensionID = "nfadohinhmepekandhojgchganbcflen"

// ExtensionOrigin is the only browser origin the server answers.
const ExtensionOrigin = "chrome-extension://" + ExtensionID

// MaxBody caps every request body.
const MaxBody = 5 << 20

// guard enforces the security model on every route: a loopback Host naming
// our port (DNS rebinding), no web-page Origin (a hostile tab in the same
// browser), a capped body. It sends no CORS headers at all, so a page can
// never read an answer either.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.loopbackHost(r.Host) {
			writeProblem(w, problem.New(problem.Forbidden, "Host %q is not this server's loopback address", r.Host))
			return
		}
		if o, ok := r.Header["Origin"]; ok && (len(o) != 1 || o[0] != ExtensionOrigin) {
			writeProblem(w, problem.New(problem.Forbidden, "requests from web pages are refused (Origin %q)", r.Header.Get("Origin")))
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
