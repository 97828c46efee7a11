package capture

import "slices"

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
	TabID    int    `json:"tab,omitempty"`
	Page     string `json:"page,omitempty"`
}

func (s *Store) track(e WSEvent) {
	c, ok := s.conns[e.ID]
	if !ok {
		if len(s.conns) >= WSConnCap {
			s.evictOldestConn()
		}
		c = &WSConnection{ID: e.ID, URL: e.URL, State: "open", Opened: e.TS, TabID: e.TabID, Page: e.Page}
		s.conns[e.ID] = c
	}
	if c.URL == "" {
		c.URL = e.URL
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
		return b.Opened.Compare(a.Opened.Time)
	})
	return out
}
