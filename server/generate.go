package server

import (
	"context"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/sarif"
)

// generator writes the artifacts of what was captured: a SARIF log of the
// latest audits, a Playwright test of the human's actions (testgen.go), a
// HAR archive (har.go).
type generator struct {
	store   *capture.Store
	perf    *pageLoads
	page    *livePage
	an      *analysis
	maps    *sourceMaps
	trail   *auditTrail
	version string
	harDir  string // where archives go; "": small ones inline only
}

func (s *Server) generateTool() tool {
	return tool{
		name:     "generate",
		desc:     "An artifact of what was captured.",
		hints:    additive,
		selector: newParam[string]("format", ""),
		modes: []mode{
			{"sarif", "latest a11y and security audits", nil, s.gen.sarif},
			{"test", "Playwright test of the human's actions", []declared{testNameParam, baseURLParam, mockParam, shotsParam, filterParam, includeAI},
				s.afterHeld(s.gen.test)},
			{"har", "HAR 1.2 file", []declared{filterParam}, s.afterHeld(s.gen.har)},
		},
	}
}

// sarif puts the latest audit of each kind in one document, a run
// per analyser.
func (g *generator) sarif(context.Context, args) (any, error) {
	var doc sarif.Log
	if r, ok := g.page.audits.Latest(); ok {
		doc = sarif.FromAudit(r)
	}
	if r, ok := g.an.security.Get(); ok {
		r = g.maps.mapFindings(r)
		if doc.Runs == nil {
			doc = sarif.FromSecurity(r)
		} else {
			doc.Runs = append(doc.Runs, sarif.SecurityRun(r))
		}
	}
	if doc.Runs == nil {
		return nil, problem.New(problem.NotFound, `no audit yet: call analyze{target:"accessibility"} or analyze{target:"security"} first`)
	}
	return doc, nil
}
