package tui

import (
	"github.com/gasoline-dev/gasoline/features/capture"
)

// bodyText is the captured headers and bodies of a request, for the
// Network pane's free-text filter: a word in a 500's response body finds
// it. The bodies' list is built once per change of the bodies, not per row.
func (m *Model) bodyText(src any) []string {
	e, ok := src.(capture.NetworkEntry)
	if !ok || m.bodies.len() == 0 {
		return nil
	}
	if m.bodyCache == nil {
		m.bodyCache = m.bodyList()
	}
	i := capture.BodyFor(e, m.bodyCache, nil)
	if i < 0 {
		return nil
	}
	b := m.bodyCache[i]
	out := []string{b.RequestBody, b.ResponseBody, b.ContentType}
	for k, v := range b.RequestHeaders {
		out = append(out, k+": "+v)
	}
	for k, v := range b.ResponseHeaders {
		out = append(out, k+": "+v)
	}
	return out
}

// bodiesArrived forgets the bodies' list and, when the Network pane's
// filter searches text, matches its rows again: a body comes after its
// request's row.
func (m *Model) bodiesArrived() {
	m.bodyCache = nil
	if len(m.network.q.words) > 0 {
		m.network.dirty = true
	}
}
