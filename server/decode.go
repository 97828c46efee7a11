package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// decodeBody reads exactly one JSON value from a request body.
func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		return jsonProblem(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			if p := jsonProblem(err); p.Code == problem.TooLarge {
				return p
			}
		}
		return problem.New(problem.InvalidParam, "body has data after the JSON value")
	}
	return nil
}

// jsonProblem turns every way JSON input can be wrong into a problem that
// names the mistake.
func jsonProblem(err error) *problem.Error {
	var (
		tooBig  *http.MaxBytesError
		syntax  *json.SyntaxError
		typeErr *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &tooBig):
		return problem.New(problem.TooLarge, "body exceeds %d bytes", tooBig.Limit)
	case errors.Is(err, io.EOF):
		return problem.New(problem.InvalidParam, "empty body: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return problem.New(problem.InvalidParam, "malformed JSON: unexpected end of body")
	case errors.As(err, &syntax):
		return problem.New(problem.InvalidParam, "malformed JSON at byte %d: %v", syntax.Offset, syntax)
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "value"
		}
		return problem.New(problem.InvalidParam, "%s: want %s, got JSON %s", field, typeErr.Type, typeErr.Value)
	}
	return problem.New(problem.InvalidParam, "invalid JSON: %v", err)
}

// batchTooBig keeps one request from holding more than a batch's worth.
func batchTooBig(n, max int) error {
	if n > max {
		return problem.New(problem.TooLarge, "batch of %d entries exceeds %d; send smaller batches", n, max)
	}
	return nil
}
