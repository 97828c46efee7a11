package server

// queryTabParam picks the tab a query of the live page goes to.
var queryTabParam = tabParam.describe("Query this tab instead")

func (s *Server) analyzeTool() tool {
	return tool{
		name: "analyze",
		desc: "Inspect the live page in the developer's tab (the tracked tab unless tab_id). " +
			"dom: elements matching selector; page_info: page summary; accessibility: axe-core audit, cached 30 s per page; " +
			"security: secrets, PII, auth, plain HTTP; api: response shape changes (action report); " +
			"screenshot: viewport, element or full_page; verify: action start, watch, compare; diff: action capture, compare, list, delete snapshots; performance: loads vs baseline.",
		hints:    additive,
		selector: newParam[string]("target", ""),
		params: []declared{selectorParam, stylesParam, propsParam, childrenParam, depthParam,
			scopeParam, tagsParam, passesParam, refreshParam, queryTabParam, fullPageParam, formatParam, maxWidthParam,
			actionParam, checksParam, severityParam, filterParam, ignoreParam, sessionIDParam, nameParam, compareBParam},
		modes: []mode{
			{"dom", s.analyzeDOM},
			{"page_info", s.analyzePageInfo},
			{"screenshot", s.analyzeScreenshot},
			{"accessibility", s.analyzeAccessibility},
			{"security", s.audited("security", s.afterHeld(s.analyzeSecurity))},
			{"api", s.audited("api", s.afterHeld(s.analyzeAPI))},
			{"verify", s.audited("verify", s.afterHeld(s.analyzeVerify))},
			{"diff", s.audited("diff", s.afterHeld(s.analyzeDiff))},
			{"performance", s.analyzePerformance},
		},
	}
}
