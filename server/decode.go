package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// decodeBody reads exactly one JSON value from a request body. It uses the
// json/v2 prototype: one pass over the input (twice the ingest throughput of
// encoding/json here) and errors that carry a JSON pointer to the mistake.
//
// Invalid UTF-8 and lone surrogates become U+FFFD instead of failing the
// batch: the extension truncates page strings, which can split a pair.
func decodeBody(r *http.Request, v any) error {
	if err := jsonv2.UnmarshalRead(r.Body, v, decodeOpts); err != nil {
		return jsonProblem(err)
	}
	return nil
}

// decodeOpts are the options of every request decode.
var decodeOpts = jsontext.AllowInvalidUTF8(true)

// jsonProblem turns every way JSON input can be wrong into a problem that
// names the mistake and where it is.
func jsonProblem(err error) *problem.Error {
	var (
		tooBig *http.MaxBytesError
		syn    *jsontext.SyntacticError
		sem    *jsonv2.SemanticError
	)
	switch {
	case errors.As(err, &tooBig):
		return problem.New(problem.TooLarge, "body exceeds %d bytes", tooBig.Limit)
	case errors.As(err, &syn):
		if syn.ByteOffset == 0 && errors.Is(syn.Err, io.ErrUnexpectedEOF) {
			return problem.New(problem.InvalidParam, "empty body: want a JSON object")
		}
		return problem.New(problem.InvalidParam, "malformed JSON at byte %d%s: %v", syn.ByteOffset, at(syn.JSONPointer), syn.Err)
	case errors.As(err, &sem):
		want := "a different type"
		if sem.GoType != nil {
			want = sem.GoType.String()
		}
		msg := fmt.Sprintf("%s: want %s", where(sem.JSONPointer), want)
		if sem.JSONKind != 0 {
			msg += ", got JSON " + sem.JSONKind.String()
		}
		if sem.Err != nil {
			msg += " (" + sem.Err.Error() + ")"
		}
		return problem.New(problem.InvalidParam, "%s", msg)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return problem.New(problem.InvalidParam, "empty body: want a JSON object")
	}
	return problem.New(problem.InvalidParam, "invalid JSON: %v", err)
}

func at(p jsontext.Pointer) string {
	if p == "" {
		return ""
	}
	return " (in " + string(p) + ")"
}

func where(p jsontext.Pointer) string {
	if p == "" {
		return "body"
	}
	return string(p)
}

// batchTooBig keeps one request from holding more than a batch's worth.
func batchTooBig(n, max int) error {
	if n > max {
		return problem.New(problem.TooLarge, "batch of %d entries exceeds %d; send smaller batches", n, max)
	}
	return nil
}
