package capture

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// WSConnection is the state of one tracked WebSocket.
type WSConnection struct {
	ID       string `json:"id"`
	URL      string `json:"url"`
	State    string `json:"state"` // open, closed, error
	Opened   Time   `json:"opened"`
	Closed   *Time  `json:"closed,omitempty"`
	Code     int    `json:"code,omitempty"`
	Reason   string `json:"reason,omitempty"`
	In       int    `json:"messages_in"`
	Out      int    `json:"messages_out"`
	BytesIn  int64  `json:"bytes_in,omitempty"`
	BytesOut int64  `json:"bytes_out,omitempty"`
	LastMsg  *Time  `json:"last_message,omitempty"`
	// Messages says when messages_in and messages_out are not counts: the
	// page's last word on the socket came while it captured no messages.
	Messages string `json:"messages,omitempty"`
	TabID    int    `json:"tab,omitempty"`
	Page     string `json:"page,omitempty"`

	// n orders sockets first seen in the same millisecond: the order the
	// events came in, which the history replays for the next server.
	n uint64
}

func (s *Store) track(e WSEvent) {
	c, ok := s.conns[e.ID]
	if !ok {
		if len(s.conns) >= WSConnCap {
			s.evictOldestConn()
		}
		s.connsSeen++
		c = &WSConnection{ID: e.ID, URL: e.URL, State: "open", Opened: e.TS, TabID: e.TabID, Page: e.Page, n: s.connsSeen}
		s.conns[e.ID] = c
	}
	if c.URL == "" {
		c.URL = e.URL
	}
	switch e.Event {
	case "open", "close", "error":
		c.Messages = ""
		if e.Messages == "off" {
			c.Messages = NotCounted
		}
	case "message":
		c.Messages = "" // counted from here on
	}
	switch e.Event {
	case "open":
		c.State, c.Opened = "open", e.TS
	case "close":
		ts := e.TS
		c.State, c.Closed, c.Code, c.Reason = "closed", &ts, e.Code, e.Reason
	case "error":
		c.State = "error"
	case "message":
		ts := e.TS
		c.LastMsg = &ts
		if e.Direction == "incoming" {
			c.In++
			c.BytesIn += e.Size
		} else {
			c.Out++
			c.BytesOut += e.Size
		}
	}
}

func (s *Store) evictOldestConn() {
	var oldest *WSConnection
	for _, c := range s.conns {
		if oldest == nil || c.Opened.Before(oldest.Opened.Time) {
			oldest = c
		}
	}
	delete(s.conns, oldest.ID)
}

// WSConnections returns tracked connections, open ones first, then newest.
func (s *Store) WSConnections(q Query) []WSConnection {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]WSConnection, 0, len(s.conns))
	for _, c := range s.conns {
		if q.url(c.URL) && q.tab(c.TabID) && (q.ConnectionID == "" || c.ID == q.ConnectionID) {
			out = append(out, *c)
		}
	}
	slices.SortFunc(out, func(a, b WSConnection) int {
		if (a.State == "open") != (b.State == "open") {
			if a.State == "open" {
				return -1
			}
			return 1
		}
		// At the millisecond the history keeps, so that the next server
		// lists them as this one does.
		if c := b.Opened.Truncate(time.Millisecond).Compare(a.Opened.Truncate(time.Millisecond)); c != 0 {
			return c
		}
		return cmp.Compare(b.n, a.n)
	})
	return out
}

// NotCounted is a connection's Messages while its messages are not counted.
const NotCounted = `not counted: ws_mode is lifecycle (configure capture ws_mode "messages" counts them)`

// CodeGoingAway is the close code of a socket whose page went away (RFC
// 6455: "a browser having navigated away from a page").
const CodeGoingAway = 1001

// leftPage is when a tab's document went away, and why.
type leftPage struct {
	at     Time
	reason string
}

// maxLeftTabs bounds the tabs whose leaving is remembered for the events
// of their gone documents that arrive late.
const maxLeftTabs = 64

// PageLeft says tab's document went away at at (a reload, a navigation, a
// closed tab, the back/forward cache): every WebSocket of the tab opened
// before at is closed by a close event with CodeGoingAway and reason, as
// the page cannot report it itself. A socket of a gone document reported
// later is closed as it arrives. It returns how many it closed.
func (s *Store) PageLeft(tab int, at Time, reason string) int {
	if tab <= 0 {
		return 0
	}
	reason = Truncate(reason, MaxText)
	s.mu.Lock()
	if at.IsZero() {
		at.Time = s.now()
	}
	if s.left == nil {
		s.left = make(map[int]leftPage)
	}
	if prev, ok := s.left[tab]; !ok || prev.at.Before(at.Time) {
		if !ok && len(s.left) >= maxLeftTabs {
			s.forgetOldestLeft()
		}
		s.left[tab] = leftPage{at, reason}
	}
	var closes []WSEvent
	for _, c := range s.conns {
		if ev, ok := s.orphan(c); ok {
			closes = append(closes, ev)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(closes, func(a, b WSEvent) int { return strings.Compare(a.ID, b.ID) })
	n, _ := s.AddWSEvents(closes)
	return n
}

// trackLive tracks e and adds to orphans the close of its socket if the
// socket's page has already gone. The caller holds the lock.
func (s *Store) trackLive(e WSEvent, orphans []WSEvent) []WSEvent {
	s.track(e)
	if c, ok := s.conns[e.ID]; ok && len(s.left) > 0 {
		if ev, ok := s.orphan(c); ok && !slices.ContainsFunc(orphans, func(o WSEvent) bool { return o.ID == c.ID }) {
			orphans = append(orphans, ev)
		}
	}
	return orphans
}

// orphan is the close event of c if c is not closed and its page went
// away after it opened. The caller holds the lock.
func (s *Store) orphan(c *WSConnection) (WSEvent, bool) {
	l, ok := s.left[c.TabID]
	if !ok || c.State == "closed" || !c.Opened.Before(l.at.Time) {
		return WSEvent{}, false
	}
	ev := WSEvent{TS: l.at, Event: "close", ID: c.ID, URL: c.URL, Code: CodeGoingAway, Reason: l.reason, TabID: c.TabID, Page: c.Page}
	if c.Messages != "" {
		ev.Messages = "off" // the server's close says nothing new of the counting
	}
	return ev, true
}

func (s *Store) forgetOldestLeft() {
	oldest, first := 0, true
	for tab, l := range s.left {
		if first || l.at.Before(s.left[oldest].at.Time) {
			oldest, first = tab, false
		}
	}
	delete(s.left, oldest)
}
