package server

import "net/http"

// routes is where a capability registers its HTTP routes: the extension's
// and anyone's with handle, the human's (behind the token) with human.
type routes struct {
	mux   *http.ServeMux
	guard func(http.HandlerFunc) http.HandlerFunc // the human's token check
}

// routed is a capability with HTTP routes; Handler lists each.
type routed interface{ routes(routes) }

func (r routes) handle(pattern string, h http.HandlerFunc) { r.mux.HandleFunc(pattern, h) }

func (r routes) human(pattern string, h http.HandlerFunc) { r.mux.HandleFunc(pattern, r.guard(h)) }
