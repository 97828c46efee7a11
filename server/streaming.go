package server

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/security"
	"github.com/gasoline-dev/gasoline/features/streaming"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// The parameters of configure{action:"streaming"}.
var (
	streamOnParam     = newParam[bool]("enabled", "")
	streamEventsParam = newParam[[]string]("events", "").oneOf(streaming.Categories...)
	throttleParam     = newParam[int]("throttle_seconds", "default 5").
				between(streaming.MinThrottle, streaming.MaxThrottle)
	urlFilterParam = newParam[string]("url_filter", "").maxLen(streaming.MaxURLFilter)
)

// streams holds the streamer of each MCP session that configured
// streaming. Streaming is a setting of a session, not of the server: the AI
// that turns it on gets the notifications, with its own categories,
// throttle and dedup, and another AI on the same server is not interrupted
// by a choice it did not make. One store subscription feeds every streamer;
// each has one delivery goroutine, ended with its session.
type streams struct {
	mu sync.Mutex
	by map[string]*sessionStream
	// live is what ingest reads, without a lock: nil while no session
	// configured streaming, so the common case costs one atomic load.
	live atomic.Pointer[[]*streaming.Streamer]
	// secrets is the security check every streamer shares.
	secrets security.SecretMemo
}

type sessionStream struct {
	st   *streaming.Streamer
	stop context.CancelFunc
	done chan struct{}
}

// observe is the store subscription: every stored entry goes to every
// session's streamer, which ignores it while that session's streaming is off.
func (ss *streams) observe(e capture.Event) {
	if p := ss.live.Load(); p != nil {
		for _, st := range *p {
			st.ObserveEvent(e)
		}
	}
}

// get returns the session's streamer, creating it (off) and starting its
// delivery with start on first use.
func (ss *streams) get(id string, concerns func(tab int) bool, start func(context.Context, *streaming.Streamer)) *streaming.Streamer {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s, ok := ss.by[id]; ok {
		return s.st
	}
	if ss.by == nil {
		ss.by = make(map[string]*sessionStream)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &sessionStream{st: streaming.New(streaming.Options{Secrets: ss.secrets.Kind, Concerns: concerns}), stop: cancel, done: make(chan struct{})}
	ss.by[id] = s
	ss.publish()
	go func() {
		defer close(s.done)
		start(ctx, s.st)
	}()
	return s.st
}

// end stops the session's delivery and forgets its streamer; with no id,
// every session's. It returns once the delivery goroutines have ended.
func (ss *streams) end(ids ...string) {
	ss.mu.Lock()
	var ended []*sessionStream
	for id, s := range ss.by {
		if len(ids) == 0 || id == ids[0] {
			ended = append(ended, s)
			delete(ss.by, id)
		}
	}
	ss.publish()
	ss.mu.Unlock()
	for _, s := range ended {
		s.stop()
		<-s.done
	}
}

// publish refreshes live from by; the caller holds mu.
func (ss *streams) publish() {
	if len(ss.by) == 0 {
		ss.live.Store(nil)
		return
	}
	list := make([]*streaming.Streamer, 0, len(ss.by))
	for _, s := range ss.by {
		list = append(list, s.st)
	}
	ss.live.Store(&list)
}

// configureStreaming is configure{action:"streaming"}: it changes the
// calling session's streaming, only the keys the call gave, and answers the
// resulting config. auditConfigure records it.
func (s *Server) configureStreaming(ctx context.Context, a args) (any, error) {
	var u streaming.Update
	if on, ok := streamOnParam.lookup(a); ok {
		u.Enabled = &on
	}
	if ev, ok := streamEventsParam.lookup(a); ok {
		u.Events = append([]string{}, ev...) // empty, not nil: all categories
	}
	u.ThrottleSeconds = throttleParam.get(a) // 0 (absent) keeps it; the schema allows 1–60
	if f, ok := urlFilterParam.lookup(a); ok {
		u.URLFilter = &f
	}
	sess := server.ClientSessionFromContext(ctx)
	if sess == nil {
		return nil, problem.New(problem.InvalidParam, "streaming is a setting of an MCP session; this call has none")
	}
	id, who := sess.SessionID(), agent(ctx)
	concerns := func(tab int) bool { return s.tabs.Concerns(id, tab) }
	st := s.streams.get(id, concerns, func(ctx context.Context, st *streaming.Streamer) {
		st.Run(ctx, func(n streaming.Notification) { s.deliver(id, who, n) })
	})
	return st.Configure(u)
}

// deliver sends one notification to the session that asked for it and
// shows it on the event stream. Neither send waits: a client that does not
// read its notifications loses them (mcp-go drops what its bounded channel
// cannot take), and never slows ingest or another session.
func (s *Server) deliver(id, who string, n streaming.Notification) {
	n = s.maps.mapNotification(context.Background(), n)
	if err := s.mcp.SendNotificationToSpecificClient(id, streaming.Method, n.Params()); err != nil {
		fmt.Fprintf(s.cfg.Log, "gasoline: streaming: a notification to %s was not delivered: %v\n", who, err)
		return
	}
	s.events.publish(wire.EventStreamed, wire.Streamed{Agent: who, Notification: n})
}

// streamLine is a streaming config in one line, for the audit log.
func streamLine(c streaming.Config) string {
	if !c.Enabled {
		return "off"
	}
	line := fmt.Sprintf("on: %s every %ds", strings.Join(c.Events, ","), c.ThrottleSeconds)
	if c.URLFilter != "" {
		line += " for URLs containing " + c.URLFilter
	}
	return line
}

// enabled is the sessions that have streaming on.
func (ss *streams) enabled() []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var ids []string
	for id, s := range ss.by {
		if s.st.Config().Enabled {
			ids = append(ids, id)
		}
	}
	return ids
}
