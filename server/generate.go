package server

import (
	"context"

	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/sarif"
)

func (s *Server) generateTool() tool {
	return tool{
		name:     "generate",
		desc:     "An artifact of what was captured.",
		hints:    additive,
		selector: newParam[string]("format", ""),
		modes: []mode{
			{"sarif", "latest a11y and security audits", nil, s.generateSARIF},
			{"test", "Playwright test of the human's actions", []declared{testNameParam, baseURLParam, mockParam, shotsParam, filterParam, includeAI},
				s.afterHeld(s.generateTest)},
			{"har", "HAR 1.2 file", []declared{filterParam}, s.afterHeld(s.generateHAR)},
		},
	}
}

// generateSARIF puts the latest audit of each kind in one document, a run
// per analyser.
func (s *Server) generateSARIF(context.Context, args) (any, error) {
	var doc sarif.Log
	if r, ok := s.page.audits.Latest(); ok {
		doc = sarif.FromAudit(r)
	}
	if r, ok := s.an.security.Get(); ok {
		r = s.maps.mapFindings(r)
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
