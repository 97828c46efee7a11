package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/decisions"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// TokenHeader carries the human token (see wire.TokenHeader).
const TokenHeader = wire.TokenHeader

// newToken is a fresh random token for one server.
func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on Linux/macOS (crypto/rand panics otherwise)
	return hex.EncodeToString(b)
}

// writeToken puts the token in the file the dashboard reads; without it
// the human's API refuses every call, so a failure is loud. The token dies
// with this server, so its file need not survive a crash: the start does
// not wait on an fsync for it.
func (s *Server) writeToken() {
	if s.cfg.TokenFile == "" {
		return
	}
	if err := decisions.Replace(s.cfg.TokenFile, []byte(s.token+"\n")); err != nil {
		fmt.Fprintf(s.cfg.Log, "gasoline: warning: write the human token: %v; the dashboard cannot veto\n", err)
	}
}

// HumanToken is the token the human's API requires (tests, in-process use).
func (s *Server) HumanToken() string { return s.token }

// holdsToken reports whether r carries the human token.
func (s *Server) holdsToken(r *http.Request) bool {
	got := r.Header.Get(TokenHeader)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// human lets only calls that carry the token through to h, and audits every
// other attempt: a shell the AI runs can reach the port, but not without
// deliberately reading a file that is the user's secret.
func (s *Server) human(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get(TokenHeader)
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
			reason := "no token"
			if got != "" {
				reason = "wrong token"
			}
			s.trail.write(audit.Event{Event: "human_api_refused", Action: r.Method + " " + r.URL.Path, Reason: reason,
				Error: string(problem.TokenRequired), Source: "unknown", Agent: r.Header.Get("User-Agent")})
			writeProblem(w, problem.New(problem.TokenRequired, "This call is the human's: it needs the %s header with the token in %s.",
				TokenHeader, s.tokenFileName()))
			return
		}
		h(w, r)
	}
}

func (s *Server) tokenFileName() string {
	if s.cfg.TokenFile == "" {
		return "the server's token file"
	}
	return s.cfg.TokenFile
}
