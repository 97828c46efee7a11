package server

import (
	"math"
	"slices"
	"strings"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// args are a tool call's arguments, read with type checks so a wrong type is
// an invalid_param result naming the parameter, never a silent default.
type args map[string]any

func (a args) str(key string) (string, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", problem.New(problem.InvalidParam, "%s must be a string", key)
	}
	return s, nil
}

func (a args) enum(key string, allowed ...string) (string, error) {
	s, err := a.str(key)
	if err != nil || s == "" || slices.Contains(allowed, s) {
		return s, err
	}
	return "", problem.New(problem.InvalidParam, "%s: %q is not one of %s", key, s, strings.Join(allowed, ", "))
}

// int reads an integer parameter within [min, max]; 0 when absent.
func (a args) int(key string, min, max int) (int, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return 0, nil
	}
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) {
		return 0, problem.New(problem.InvalidParam, "%s must be an integer", key)
	}
	if f < float64(min) || f > float64(max) {
		return 0, problem.New(problem.InvalidParam, "%s must be between %d and %d", key, min, max)
	}
	return int(f), nil
}

// uint reads a non-negative integer such as a cursor.
func (a args) uint(key string) (uint64, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return 0, nil
	}
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || f < 0 {
		return 0, problem.New(problem.InvalidParam, "%s must be a cursor from an earlier result", key)
	}
	return uint64(f), nil
}

// firstErr returns the first non-nil error, for parsing several parameters.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (a args) bool(key string) (bool, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, problem.New(problem.InvalidParam, "%s must be true or false", key)
	}
	return b, nil
}

// strs reads a list of strings.
func (a args) strs(key string) ([]string, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, problem.New(problem.InvalidParam, "%s must be a list of strings", key)
	}
	out := make([]string, len(list))
	for i, x := range list {
		if out[i], ok = x.(string); !ok {
			return nil, problem.New(problem.InvalidParam, "%s must be a list of strings", key)
		}
	}
	return out, nil
}
