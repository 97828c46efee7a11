package tui

import (
	"github.com/gasoline-dev/gasoline/features/capture"
)

// bodyStore is the newest request and response payloads, for the detail
// of a request, its copy menu and the Network pane's free-text filter.
type bodyStore struct {
	ring ring[capture.NetworkBody]
	// list is ring as a list, built once per change of the bodies (the
	// filter reads it for every row); nil when stale.
	list []capture.NetworkBody
}

func newBodyStore() bodyStore { return bodyStore{ring: newRing[capture.NetworkBody](capture.BodyCap)} }

// add keeps bodies, the oldest going past the bound.
func (s *bodyStore) add(bodies []capture.NetworkBody) {
	for _, b := range bodies {
		s.ring.push(b)
	}
	if len(bodies) > 0 {
		s.list = nil
	}
}

// all is the bodies, oldest first.
func (s *bodyStore) all() []capture.NetworkBody {
	if s.list == nil {
		s.list = make([]capture.NetworkBody, 0, s.ring.len())
		s.ring.each(func(b capture.NetworkBody) { s.list = append(s.list, b) })
	}
	return s.list
}

// text is the captured headers and bodies of a request, for the Network
// pane's free-text filter: a word in a 500's response body finds it.
func (s *bodyStore) text(src any) []string {
	e, ok := src.(capture.NetworkEntry)
	if !ok || s.ring.len() == 0 {
		return nil
	}
	all := s.all()
	i := capture.BodyFor(e, all, nil)
	if i < 0 {
		return nil
	}
	b := all[i]
	out := []string{b.RequestBody, b.ResponseBody, b.ContentType}
	for k, v := range b.RequestHeaders {
		out = append(out, k+": "+v)
	}
	for k, v := range b.ResponseHeaders {
		out = append(out, k+": "+v)
	}
	return out
}
