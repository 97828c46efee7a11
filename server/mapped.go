package server

import (
	"context"
	"slices"
	"sync"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/sourcemap"
	"github.com/gasoline-dev/gasoline/features/streaming"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// The human and streamed notifications see stacks and positions through
// the same resolver, and in the same words, as the AI's observe answers:
// a console row or detail that says dist/main.js:1:79 while the AI reads
// /src/cart.ts:6:35 makes the two talk about different things.

// maxMapping bounds, in bytes of entry text, the console entries waiting
// for their maps before they reach the dashboards; past it an entry is
// dropped for the dashboards (and counted as a slow stream's would be).
const maxMapping = subBytes

// mapping publishes console entries to the event stream in the order they
// were stored, each with its stack and source at the original sources. An
// entry with a stack may wait for its scripts' maps (the resolver bounds
// that wait); the ones stored after it wait behind it, so that sequence
// numbers keep rising on the stream (the dashboard drops a lower one as a
// repeat). Other kinds do not wait: they are separate panes.
type mapping struct {
	mu      sync.Mutex
	q       []capture.Event
	bytes   int
	running bool
}

// publishEntry is the store subscription that feeds the event stream.
func (m *sourceMaps) publishEntry(ev capture.Event) {
	e, ok := ev.Entry.(capture.LogEntry)
	if ev.Kind != capture.KindLogs || !ok || !m.events.active() {
		m.events.publish(wire.EventEntry, ev)
		return
	}
	p := &m.mapping
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.running && e.Stack == "" && e.Source == "" {
		m.events.publish(wire.EventEntry, ev) // publish never blocks
		return
	}
	n := e.TextBytes()
	if p.bytes+n > maxMapping {
		m.events.dropped.Add(1)
		return
	}
	p.q = append(p.q, ev)
	p.bytes += n
	if !p.running {
		p.running = true
		go m.drainMapping()
	}
}

// drainMapping resolves and publishes what waits, a batch at a time (one
// Resolve per batch, so each script's map is read once), until nothing does.
func (m *sourceMaps) drainMapping() {
	p := &m.mapping
	for {
		p.mu.Lock()
		batch := p.q
		p.q, p.bytes = nil, 0
		if len(batch) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		es := make([]capture.LogEntry, len(batch))
		for i, ev := range batch {
			es[i] = ev.Entry.(capture.LogEntry)
		}
		es = m.humanLogs(context.Background(), es)
		for i, ev := range batch {
			ev.Entry = es[i]
			m.events.publish(wire.EventEntry, ev)
		}
	}
}

// humanLogs returns console entries with their stacks and sources at the
// original sources where the scripts have maps, written as observe writes
// them (sourcemap.Render); an entry none of whose frames is mapped stays
// as the browser gave it.
func (m *sourceMaps) humanLogs(ctx context.Context, es []capture.LogEntry) []capture.LogEntry {
	stacks := make([]sourcemap.Stack, 0, 2*len(es))
	for _, e := range es {
		stacks = append(stacks, sourcemap.Stack{Page: e.Page, Frames: sourcemap.Parse(e.Stack)}, sourceStack(e.Page, e.Source))
	}
	resolved := m.Resolve(ctx, stacks)
	out := slices.Clone(es)
	for i := range out {
		origin := sourcemap.OriginOf(out[i].Page)
		if st := resolved[2*i]; anyMapped(st) {
			out[i].Stack = sourcemap.Render(st, origin).Stack
		}
		if src := resolved[2*i+1]; anyMapped(src) {
			out[i].Source = sourcemap.Render(src, origin).Top
		}
	}
	return out
}

// sourceStack is a script position ("url:line:col") as a one-frame stack;
// no frames when there is none.
func sourceStack(page, source string) sourcemap.Stack {
	st := sourcemap.Stack{Page: page}
	if source != "" {
		st.Frames = sourcemap.Parse("at " + source)[:1]
	}
	return st
}

func anyMapped(rs []sourcemap.Resolved) bool {
	return slices.ContainsFunc(rs, func(r sourcemap.Resolved) bool { return r.Mapped })
}

// mapNotification places the sources a streamed notification names at
// their original positions, as observe errors shows them. It runs on the
// session's delivery goroutine, which may wait for a map (bounded by the
// resolver): notifications are batched seconds apart anyway.
func (m *sourceMaps) mapNotification(ctx context.Context, n streaming.Notification) streaming.Notification {
	var ctxs []*streaming.Context
	if n.Context != nil && n.Context.Source != "" {
		c := *n.Context
		n.Context = &c
		ctxs = append(ctxs, n.Context)
	}
	if len(n.Events) > 0 {
		n.Events = slices.Clone(n.Events)
		for i := range n.Events {
			if c := n.Events[i].Context; c != nil && c.Source != "" {
				cc := *c
				n.Events[i].Context = &cc
				ctxs = append(ctxs, n.Events[i].Context)
			}
		}
	}
	if len(ctxs) == 0 {
		return n
	}
	stacks := make([]sourcemap.Stack, len(ctxs))
	for i, c := range ctxs {
		stacks[i] = sourceStack(c.Page, c.Source)
	}
	for i, rs := range m.Resolve(ctx, stacks) {
		if anyMapped(rs) {
			ctxs[i].Source = sourcemap.Render(rs, sourcemap.OriginOf(ctxs[i].Page)).Top
		}
	}
	return n
}

// humanRecent is recent's backlog with the console entries' stacks at
// their original sources, for a dashboard that opens its stream.
func (m *sourceMaps) humanRecent(ctx context.Context, evs []capture.Event) []capture.Event {
	var at []int
	var es []capture.LogEntry
	for i, ev := range evs {
		if e, ok := ev.Entry.(capture.LogEntry); ok && ev.Kind == capture.KindLogs && (e.Stack != "" || e.Source != "") {
			at = append(at, i)
			es = append(es, e)
		}
	}
	if len(es) == 0 {
		return evs
	}
	for j, e := range m.humanLogs(ctx, es) {
		evs[at[j]].Entry = e
	}
	return evs
}
