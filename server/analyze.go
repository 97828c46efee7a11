package server

// queryTabParam picks the tab a query of the live page goes to; the
// tool's description says which one by default.
var queryTabParam = tabParam

// listAfterParam pages the interactive list: the next of the last answer.
var listAfterParam = newParam[uint64]("after", "")

func (s *Server) analyzeTool() tool {
	return tool{
		name:     "analyze",
		desc:     "Inspect the live page in the developer's tab (the tracked tab unless tab_id).",
		hints:    additive,
		selector: newParam[string]("target", ""),
		scope:    s.tabs.sessionTab,
		modes: []mode{
			{"dom", "matching elements", []declared{selectorParam, stylesParam, propsParam, childrenParam, depthParam, queryTabParam},
				s.page.dom},
			{"page_info", "page summary", []declared{queryTabParam}, s.page.pageInfo},
			{"interactive", "actionable elements, refs", []declared{listAfterParam, queryTabParam}, s.acts.analyzeInteractive},
			{"styles", "rule, file:line, why", []declared{selectorParam, propsParam, queryTabParam},
				(&styler{queries: s.queries, maps: s.maps}).analyzeStyles},
			{"screenshot", "viewport or element", []declared{selectorParam, fullPageParam, formatParam, maxWidthParam, queryTabParam},
				s.page.screenshot},
			{"accessibility", "axe-core", []declared{scopeParam, tagsParam, passesParam, refreshParam, queryTabParam},
				s.page.accessibility},
			{"security", "secrets, PII, auth, plain HTTP", []declared{checksParam, filterParam, severityParam},
				s.trail.audited("security", s.afterHeld(s.an.analyzeSecurity))},
			{"api", "response shape changes", []declared{actionParam, filterParam, ignoreParam},
				s.trail.audited("api", s.afterHeld(s.an.analyzeAPI))},
			{"verify", "start, watch, compare", []declared{actionParam, sessionIDParam, nameParam, filterParam, verifyReplayParam},
				s.trail.audited("verify", s.afterHeld(s.an.analyzeVerify))},
			{"diff", "capture, compare, list, delete", []declared{actionParam, nameParam, compareBParam, filterParam},
				s.trail.audited("diff", s.afterHeld(s.an.analyzeDiff))},
			{"performance", "loads vs baseline", []declared{filterParam}, s.perf.analyze},
		},
	}
}
