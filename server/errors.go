package server

import (
	"encoding/json"
	"net/http"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// httpStatus is the one place a problem code becomes an HTTP status.
var httpStatus = map[problem.Code]int{
	problem.InvalidParam:          http.StatusBadRequest,
	problem.NotFound:              http.StatusNotFound,
	problem.Timeout:               http.StatusGatewayTimeout,
	problem.RateLimited:           http.StatusTooManyRequests,
	problem.ExtensionNotConnected: http.StatusServiceUnavailable,
	problem.PilotDisabled:         http.StatusForbidden,
	problem.RevokedByUser:         http.StatusForbidden,
	problem.CSPBlocked:            http.StatusForbidden,
	problem.ScriptError:           http.StatusUnprocessableEntity,
	problem.TooLarge:              http.StatusRequestEntityTooLarge,
	problem.Forbidden:             http.StatusForbidden,
	problem.TokenRequired:         http.StatusUnauthorized,
	problem.DeniedByUser:          http.StatusForbidden,
	problem.ApprovalTimeout:       http.StatusRequestTimeout,
	problem.OriginNotAccepted:     http.StatusForbidden,
	problem.DecisionsUnreadable:   http.StatusConflict,
	problem.NotSaved:              http.StatusInternalServerError,
	problem.TabNotVisible:         http.StatusConflict,
	problem.ScreenshotsOff:        http.StatusForbidden,
	problem.StorageReadsOff:       http.StatusForbidden,
	problem.Internal:              http.StatusInternalServerError,
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeProblem(w http.ResponseWriter, err error) {
	p := problem.From(err)
	writeJSON(w, statusOf(p), p)
}

// statusOf is the HTTP status of p, also what an "ack" frame on the
// extension's socket says in place of one.
func statusOf(p *problem.Error) int {
	if status, ok := httpStatus[p.Code]; ok {
		return status
	}
	return http.StatusInternalServerError
}
