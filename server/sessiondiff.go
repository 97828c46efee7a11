package server

import (
	"context"

	"github.com/gasoline-dev/gasoline/features/sessiondiff"
)

// compareBParam is the diff target's second snapshot.
var compareBParam = newParam[string]("compare_b", "default current")

func (an *analysis) analyzeDiff(_ context.Context, a args) (any, error) {
	return an.diffs.Do(sessiondiff.Request{
		Action:    actionParam.get(a),
		Name:      nameParam.get(a),
		CompareB:  compareBParam.get(a),
		URLFilter: filterParam.get(a),
	})
}
