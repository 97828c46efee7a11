package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/decisions"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// TokenHeader carries the human token (see wire.TokenHeader).
const TokenHeader = wire.TokenHeader

// humanToken is the token the human's API requires: fresh for each server,
// written to a file only the user reads, which the dashboard reads.
type humanToken struct {
	value string
	file  string // "": the token is only in memory (tests)
	log   io.Writer
	trail *auditTrail
}

// newToken is a fresh random token for one server.
func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on Linux/macOS (crypto/rand panics otherwise)
	return hex.EncodeToString(b)
}

// write puts the token in the file the dashboard reads; without it
// the human's API refuses every call, so a failure is loud. The token dies
// with this server, so its file need not survive a crash: the start does
// not wait on an fsync for it.
func (t *humanToken) write() {
	if t.file == "" {
		return
	}
	if err := decisions.Replace(t.file, []byte(t.value+"\n")); err != nil {
		fmt.Fprintf(t.log, "gasoline: warning: write the human token: %v; the dashboard cannot veto\n", err)
	}
}

// HumanToken is the token the human's API requires (tests, in-process use).
func (s *Server) HumanToken() string { return s.token.value }

// holds reports whether r carries the human token.
func (t *humanToken) holds(r *http.Request) bool {
	got := r.Header.Get(TokenHeader)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(t.value)) == 1
}

// human lets only calls that carry the token through to h, and audits every
// other attempt: a shell the AI runs can reach the port, but not without
// deliberately reading a file that is the user's secret.
func (t *humanToken) human(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get(TokenHeader)
		if subtle.ConstantTimeCompare([]byte(got), []byte(t.value)) != 1 {
			reason := "no token"
			if got != "" {
				reason = "wrong token"
			}
			t.trail.write(audit.Event{Event: "human_api_refused", Action: r.Method + " " + r.URL.Path, Reason: reason,
				Error: string(problem.TokenRequired), Source: "unknown", Agent: r.Header.Get("User-Agent")})
			writeProblem(w, problem.New(problem.TokenRequired, "This call is the human's: it needs the %s header with the token in %s.",
				TokenHeader, t.fileName()))
			return
		}
		h(w, r)
	}
}

func (t *humanToken) fileName() string {
	if t.file == "" {
		return "the server's token file"
	}
	return t.file
}
