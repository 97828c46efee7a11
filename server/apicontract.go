package server

import (
	"context"

	"github.com/gasoline-dev/gasoline/features/apicontract"
)

// ignoreParam is the api target's: endpoints left out of the contracts.
var ignoreParam = newParam[[]string]("ignore_endpoints", "")

// analyzeAPI reports contract violations, or with action report the shapes
// learned. Clearing them is configure's (analyze changes nothing).
func (an *analysis) analyzeAPI(_ context.Context, a args) (any, error) {
	o := apicontract.Options{URLFilter: filterParam.get(a), Ignore: ignoreParam.get(a)}
	switch act := actionParam.get(a); act {
	case "", "analyze":
		return an.contracts.Analyze(o), nil
	case "report":
		return an.contracts.Report(o), nil
	default:
		return nil, invalid(`api: action %q is not one of analyze, report (to forget the shapes: configure{action:"clear",buffer:"api_shapes"})`, act)
	}
}
