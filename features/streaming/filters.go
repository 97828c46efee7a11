package streaming

import (
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// The significance thresholds of the spec, and the bounds of filter state.
const (
	LoadFactor    = 2.0 // a load this many times its baseline is a regression
	LongTaskMS    = 500
	ClickBurst    = 3               // clicks on one target …
	ClickWindow   = 5 * time.Second // … within this long are frustration
	SubmitTimeout = 5 * time.Second
	seenErrorCap  = 500
	endpointCap   = 500
	selectorCap   = 100
	tabCap        = 32
	maxSubmits    = 16
	maxMessage    = 300 // bytes of a captured message quoted in an event
	maxPreview    = 200 // bytes of a response body quoted in an event
	maxNormalised = 200 // bytes of a message compared for "seen before"
)

// endpoint is a request's method and URL without query or fragment.
type endpoint struct{ method, url string }

func cloneEndpoint(e endpoint) endpoint {
	return endpoint{e.method, strings.Clone(e.url)}
}

// clickRun holds the latest ClickBurst click times on one target.
type clickRun struct {
	at   [ClickBurst]time.Time
	n    int
	next int
}

type submit struct {
	f        FormSubmit
	deadline time.Time
}

// quiet reports entries no filter looks at, so the most common ones (console
// logs) skip the lock.
func quiet(entry any) bool {
	switch e := entry.(type) {
	case capture.LogEntry:
		return e.Level != "error" && e.Kind != "rejection"
	case capture.NetworkEntry, capture.NetworkBody, capture.Action, PageLoad, LongTask, FormSubmit:
		return false
	}
	return true
}

// tabOf is the tab an entry happened in (0: not known).
func tabOf(entry any) int {
	switch e := entry.(type) {
	case capture.LogEntry:
		return e.TabID
	case capture.NetworkEntry:
		return e.TabID
	case capture.NetworkBody:
		return e.TabID
	case capture.Action:
		return e.TabID
	case PageLoad:
		return e.TabID
	case LongTask:
		return e.TabID
	case FormSubmit:
		return e.TabID
	}
	return 0
}

// observe runs the filters on one entry; it reports whether the next due
// time may have changed. Called with s.mu held and s.st non-nil.
func (s *Streamer) observe(entry any, now time.Time) bool {
	switch e := entry.(type) {
	case capture.LogEntry:
		return s.onLog(&e, now)
	case capture.NetworkEntry:
		return s.onNetwork(&e, now)
	case capture.NetworkBody:
		return s.onBody(&e, now)
	case capture.Action:
		switch e.Type {
		case "click":
			return s.onClick(&e, now)
		case "submit":
			return s.onSubmit(FormSubmit{TS: e.TS, Selector: e.Selector, Page: e.Page, TabID: e.TabID}, now)
		case "navigation":
			s.answered(e.TabID, stamp(e.TS, now))
		}
	case PageLoad:
		s.answered(e.TabID, stamp(e.TS, now))
		u := bare(e.URL)
		if e.BaselineMS <= 0 || e.LoadMS <= LoadFactor*e.BaselineMS || !s.pass(Performance, key{kind: 'p', a: u}, e.URL, "", now) {
			return false
		}
		return s.st.add(Event{Category: Performance, Severity: SeverityWarning, Timestamp: ts(e.TS, now),
			Message: fmt.Sprintf("Performance regression: %s loaded in %s (baseline: %s)", u, fmtMS(e.LoadMS), fmtMS(e.BaselineMS)),
			Context: &Context{URL: u, LoadMS: int(e.LoadMS + .5), BaselineMS: int(e.BaselineMS + .5), Tab: e.TabID},
			key:     key{kind: 'p', a: u}}, now)
	case LongTask:
		k := key{kind: 'l', a: bare(e.Page)}
		if e.DurationMS <= LongTaskMS || !s.pass(Performance, k, e.Page, "", now) {
			return false
		}
		return s.st.add(Event{Category: Performance, Severity: SeverityWarning, Timestamp: ts(e.TS, now),
			Message: fmt.Sprintf("Main thread blocked for %dms", int(e.DurationMS+.5)),
			Context: &Context{DurationMS: int(e.DurationMS + .5), Page: e.Page, Tab: e.TabID}, key: k}, now)
	case FormSubmit:
		return s.onSubmit(e, now)
	}
	return false
}

// pass reports whether an event is wanted: its category is on, it is about
// a URL url_filter lets through (the request's or the page's), and it is news.
func (s *Streamer) pass(category string, k key, url, page string, now time.Time) bool {
	if !s.wants(category) {
		return false
	}
	if f := s.cfg.URLFilter; f != "" && !strings.Contains(url, f) && !strings.Contains(page, f) {
		return false
	}
	return s.st.admit(k, now)
}

func (s *Streamer) onLog(e *capture.LogEntry, now time.Time) bool {
	if !s.wants(Errors) { // quiet already let only errors and rejections through
		return false
	}
	rejection := e.Kind == "rejection"
	norm := normalise(e.Message)
	prefix, k := "Unhandled rejection: ", key{kind: 'r', a: norm}
	if !rejection {
		prefix, k.kind = "New error: ", 'e'
		// Seen counts whether or not url_filter lets it through: it is no longer new.
		if _, seen := s.st.seenErrors.get(norm); seen {
			return false
		}
		s.st.seenErrors.put(norm, struct{}{}, nil)
	}
	if !s.pass(Errors, k, "", e.Page, now) {
		return false
	}
	return s.st.add(Event{Category: Errors, Severity: SeverityError, Timestamp: ts(e.TS, now),
		Message: prefix + capture.Truncate(e.Message, maxMessage),
		Context: &Context{Source: e.Source, Page: e.Page, Tab: e.TabID}, key: k}, now)
}

func (s *Streamer) onNetwork(e *capture.NetworkEntry, now time.Time) bool {
	if e.Status > 0 {
		s.answered(e.TabID, stamp(e.TS, now))
	}
	changed := s.checkSecret(e.Method, e.URL, "", e.Page, e.TS, now)
	if e.Status == 0 || !s.wants(NetworkErrors) {
		return changed
	}
	ep := endpoint{e.Method, bare(e.URL)}
	prev, had := s.st.endpoints.get(ep)
	if !had || prev != e.Status {
		s.st.endpoints.put(ep, e.Status, cloneEndpoint)
	}
	k := key{kind: 'n', a: ep.method, b: ep.url, n: e.Status}
	lost := e.Status >= 400 && e.Status < 500 && had && prev >= 200 && prev < 300 // access lost
	if e.Status < 500 && !lost || !s.pass(NetworkErrors, k, e.URL, e.Page, now) {
		return changed
	}
	u := short(ep.url, e.Page)
	ev := Event{Category: NetworkErrors, Severity: SeverityError, Timestamp: ts(e.TS, now),
		Message: fmt.Sprintf("Server error: %s %s → %d", e.Method, u, e.Status),
		Context: &Context{Method: e.Method, URL: u, Status: e.Status, Tab: e.TabID}, key: k}
	if lost {
		ev.Severity, ev.Context.PreviousStatus = SeverityWarning, prev
		ev.Message = fmt.Sprintf("Auth/access issue: %s %s → %d (was %d)", e.Method, u, e.Status, prev)
	}
	return s.st.add(ev, now) || changed
}

// onBody quotes a response in the waiting event about the same request, and
// checks the request body for secrets. Bodies never raise a network event
// themselves: the NetworkEntry of the same request does.
func (s *Streamer) onBody(b *capture.NetworkBody, now time.Time) bool {
	if b.ResponseBody != "" {
		u := bare(b.URL)
		for i := range s.st.pending {
			p := &s.st.pending[i]
			if p.Category == NetworkErrors && p.Context.ResponsePreview == "" &&
				p.key.a == b.Method && p.key.b == u && p.key.n == b.Status {
				p.Context.ResponsePreview = capture.Truncate(b.ResponseBody, maxPreview)
				break
			}
		}
	}
	return s.checkSecret(b.Method, b.URL, b.RequestBody, b.Page, b.TS, now)
}

// checkSecret raises a security event the first time a kind of credential
// is seen going to an endpoint.
func (s *Streamer) checkSecret(method, url, body, page string, at capture.Time, now time.Time) bool {
	if s.secrets == nil || !s.wants(Security) {
		return false
	}
	kind := s.secrets(method, url, body)
	if kind == "" {
		return false
	}
	k := key{kind: 's', a: method, b: bare(url), c: kind}
	if _, seen := s.st.secrets.get(k); seen {
		return false
	}
	s.st.secrets.put(k, struct{}{}, cloneKey)
	if !s.pass(Security, k, url, page, now) {
		return false
	}
	u := short(k.b, page)
	return s.st.add(Event{Category: Security, Severity: SeverityError, Timestamp: ts(at, now),
		Message: fmt.Sprintf("Possible credential exposure in %s %s", method, u),
		Context: &Context{Method: method, URL: u, Secret: kind}, key: k}, now)
}

func (s *Streamer) onClick(a *capture.Action, now time.Time) bool {
	if a.Selector == "" || !s.wants(UserFrustration) {
		return false
	}
	at := stamp(a.TS, now)
	run, _ := s.st.clicks.get(a.Selector)
	run.at[run.next] = at
	run.next = (run.next + 1) % ClickBurst
	run.n = min(run.n+1, ClickBurst)
	// run.at[run.next] is now the oldest of the last ClickBurst clicks.
	burst := run.n == ClickBurst && at.Sub(run.at[run.next]) <= ClickWindow
	if burst {
		run = clickRun{} // the next report needs a fresh burst
	}
	s.st.clicks.put(a.Selector, run, strings.Clone)
	k := key{kind: 'c', a: a.Selector}
	if !burst || !s.pass(UserFrustration, k, "", a.Page, now) {
		return false
	}
	return s.st.add(Event{Category: UserFrustration, Severity: SeverityWarning, Timestamp: ts(a.TS, now),
		Message: fmt.Sprintf("Repeated clicks on %s — handler may be broken", a.Selector),
		Context: &Context{Selector: a.Selector, Clicks: ClickBurst, Page: a.Page, Tab: a.TabID}, key: k}, now)
}

// onSubmit starts waiting for a response to a form submit, unless one
// already came (entries of one moment can arrive in any order).
func (s *Streamer) onSubmit(f FormSubmit, now time.Time) bool {
	if !s.wants(UserFrustration) {
		return false
	}
	f.TS.Time = stamp(f.TS, now)
	if t, ok := s.st.responses.get(f.TabID); ok && !t.Before(f.TS.Time) {
		return false
	}
	if len(s.st.submits) >= maxSubmits {
		s.st.submits = s.st.submits[1:]
	}
	s.st.submits = append(s.st.submits, submit{f, now.Add(SubmitTimeout)})
	return true
}

// answered records a response (or navigation) on a tab, settling the form
// submits it may answer.
func (s *Streamer) answered(tab int, at time.Time) {
	if t, ok := s.st.responses.get(tab); !ok || at.After(t) {
		s.st.responses.put(tab, at, nil)
	}
	kept := s.st.submits[:0]
	for _, sb := range s.st.submits {
		if !(sameTab(sb.f.TabID, tab) && !at.Before(sb.f.TS.Time)) {
			kept = append(kept, sb)
		}
	}
	s.st.submits = kept
}

// expireSubmits raises the submits nothing answered in time.
func (s *Streamer) expireSubmits(now time.Time) {
	kept := s.st.submits[:0]
	for _, sb := range s.st.submits {
		if now.Before(sb.deadline) {
			kept = append(kept, sb)
			continue
		}
		target := bare(sb.f.Action)
		if target == "" {
			target = sb.f.Selector
		}
		k := key{kind: 'f', a: target}
		if !s.pass(UserFrustration, k, sb.f.Action, sb.f.Page, now) {
			continue
		}
		s.st.add(Event{Category: UserFrustration, Severity: SeverityWarning, Timestamp: sb.f.TS,
			Message: fmt.Sprintf("Form submit to %s — no response after %ds", target, int(SubmitTimeout/time.Second)),
			Context: &Context{Action: bare(sb.f.Action), Method: strings.ToUpper(sb.f.Method), Selector: sb.f.Selector, Page: sb.f.Page, Tab: sb.f.TabID},
			key:     k}, now)
	}
	s.st.submits = kept
}

// sameTab: an entry without a tab (0) may belong to any.
func sameTab(a, b int) bool { return a == b || a == 0 || b == 0 }

func stamp(t capture.Time, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t.Time
}

func ts(t capture.Time, now time.Time) capture.Time { return capture.Time{Time: stamp(t, now)} }
