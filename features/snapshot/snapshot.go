// Package snapshot reduces live capture state to a small picture of a page
// that can be compared with another: console errors and warnings grouped by
// normalised message, network endpoints with their status and duration,
// WebSocket connection states, page-load performance and the page URL.
//
// Verification sessions (features/verify) and named session diffs
// (features/sessiondiff) both compare such pictures; the type, its capture
// and its matching live here so neither feature imports the other and the
// two can never disagree on what "the same error" means.
package snapshot

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
)

// What one snapshot holds at most: the newest 50 console entries (errors
// first, warnings fill what is left) and the newest 100 requests.
const (
	MaxConsole = 50
	MaxNetwork = 100
)

// Source is the live capture state a snapshot reads; *capture.Store is one.
type Source interface {
	Errors(capture.Query) capture.Result[capture.LogEntry]
	Logs(capture.Query) capture.Result[capture.LogEntry]
	Network(capture.Query) capture.Result[capture.NetworkEntry]
	WSEvents(capture.Query) capture.Result[capture.WSEvent]
	WSConnections(capture.Query) []capture.WSConnection
	Page() (capture.Page, bool)
}

// Issue is one console message, normalised, with how often it was seen.
type Issue struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
	// At is where the newest occurrence was thrown, at its original source
	// when its script has a source map; "" when it had no stack.
	At string `json:"at,omitempty"`
}

// Endpoint is the requests to one method + path. Status is the newest
// call's: what the endpoint answers now.
type Endpoint struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	Status int    `json:"status,omitempty"`
	// Error says why the newest call got no response.
	Error      string `json:"error,omitempty"`
	Calls      int    `json:"calls,omitempty"`
	DurationMS int    `json:"duration_ms,omitempty"` // mean over the calls
	Size       int64  `json:"response_size,omitempty"`
}

// Failing reports whether the endpoint's newest call failed: an HTTP error
// or no response at all (an aborted request is the page's choice, not a failure).
func (e Endpoint) Failing() bool { return e.Status >= 400 || e.Error != "" }

// Label renders the endpoint as "POST /api/login → 500".
func (e Endpoint) Label() string {
	if e.Error != "" {
		return e.Method + " " + e.URL + " → " + e.Error
	}
	if e.Status == 0 {
		return e.Method + " " + e.URL + " → no response"
	}
	return e.Method + " " + e.URL + " → " + strconv.Itoa(e.Status)
}

func (e Endpoint) key() string { return e.Method + " " + e.URL }

// WSConn is the state of the WebSocket connections to one URL.
type WSConn struct {
	URL         string  `json:"url"`
	State       string  `json:"state"`                  // open, closed, error
	MessageRate float64 `json:"message_rate,omitempty"` // messages per second over the connection's life
}

// Snapshot is the state of the captured page at one moment, or of what was
// captured in a window (see Window).
type Snapshot struct {
	CapturedAt  capture.Time      `json:"captured_at"`
	PageURL     string            `json:"page_url,omitempty"`
	URLFilter   string            `json:"url_filter,omitempty"`
	Errors      []Issue           `json:"console_errors,omitempty"`
	Warnings    []Issue           `json:"console_warnings,omitempty"`
	Endpoints   []Endpoint        `json:"network,omitempty"`
	Requests    int               `json:"network_requests,omitempty"` // requests seen, also those past MaxNetwork
	WebSockets  []WSConn          `json:"websockets,omitempty"`
	Performance *perf.Performance `json:"performance,omitempty"`
	// Events counts what was captured in the window (entries of every kind,
	// and a page report), so a caller tells "nothing failed" from "nothing
	// happened".
	Events int `json:"-"`
}

// ErrorCount is the console errors seen, repeats included.
func (s Snapshot) ErrorCount() int {
	n := 0
	for _, e := range s.Errors {
		n += e.Count
	}
	return n
}

// FailingEndpoints returns the endpoints whose newest call failed.
func (s Snapshot) FailingEndpoints() []Endpoint {
	var out []Endpoint
	for _, e := range s.Endpoints {
		if e.Failing() {
			out = append(out, e)
		}
	}
	return out
}

// Summary is a snapshot in counts, as a capture reports it.
type Summary struct {
	CapturedAt           capture.Time      `json:"captured_at"`
	ConsoleErrors        int               `json:"console_errors"`
	ConsoleWarnings      int               `json:"console_warnings,omitempty"`
	NetworkRequests      int               `json:"network_requests,omitempty"`
	NetworkErrors        int               `json:"network_errors"`
	UniqueEndpoints      int               `json:"unique_endpoints,omitempty"`
	WebSocketConnections int               `json:"websocket_connections,omitempty"`
	Performance          *perf.Performance `json:"performance,omitempty"`
	PageURL              string            `json:"page_url,omitempty"`
	URLFilter            string            `json:"url_filter,omitempty"`
}

// Summary counts the snapshot.
func (s Snapshot) Summary() Summary {
	warnings := 0
	for _, w := range s.Warnings {
		warnings += w.Count
	}
	return Summary{
		CapturedAt: s.CapturedAt, ConsoleErrors: s.ErrorCount(), ConsoleWarnings: warnings,
		NetworkRequests: s.Requests, NetworkErrors: len(s.FailingEndpoints()), UniqueEndpoints: len(s.Endpoints),
		WebSocketConnections: len(s.WebSockets), Performance: s.Performance, PageURL: s.PageURL, URLFilter: s.URLFilter,
	}
}

// Window selects what a snapshot reads. The zero Window is "everything held now".
type Window struct {
	// After is a capture cursor (Reader.Cursor): only entries stored after it count.
	After uint64
	// Since drops a page-load measurement taken before it.
	Since time.Time
	// URLFilter keeps entries whose URL (page URL for console entries)
	// contains it.
	URLFilter string
}

// Reader takes snapshots of a capture source.
type Reader struct {
	src  Source
	perf perf.LatestFunc
	now  func() time.Time
	// locate names where an entry was thrown (nil: nowhere).
	locate func(capture.LogEntry) string
}

// SetLocate sets how an issue's newest entry is placed in the source.
func (r *Reader) SetLocate(fn func(capture.LogEntry) string) { r.locate = fn }

// NewReader reads src, and page-load metrics from perf when it is not nil.
// now is the clock (time.Now when nil).
func NewReader(src Source, perf perf.LatestFunc, now func() time.Time) *Reader {
	if now == nil {
		now = time.Now
	}
	return &Reader{src: src, perf: perf, now: now}
}

// Now is the reader's clock.
func (r *Reader) Now() time.Time { return r.now() }

// Cursor marks "now" in the capture stream: a Window with this After sees
// only what is stored later.
func (r *Reader) Cursor() uint64 {
	// A query after the largest cursor stops at the newest entry at once.
	return r.src.Errors(capture.Query{After: math.MaxUint64, Limit: 1}).Cursor
}

// Take snapshots what the window selects.
func (r *Reader) Take(w Window) Snapshot {
	q := capture.Query{After: w.After, URL: w.URLFilter}
	page, _ := r.src.Page()
	snap := Snapshot{CapturedAt: capture.Time{Time: r.now()}, PageURL: page.URL, URLFilter: w.URLFilter}

	q.Limit = MaxConsole
	errs := r.src.Errors(q)
	snap.Errors = group(errs.Entries, r.locate)
	// Errors are in the log buffer too. Among its newest 2×MaxConsole entries
	// at warn or above, either there are MaxConsole errors (and no room for
	// warnings) or there are warnings enough to fill the room.
	q.Limit, q.Level = 2*MaxConsole, "warn"
	logs := r.src.Logs(q)
	var warns []capture.LogEntry
	for _, e := range logs.Entries {
		if e.Level == "warn" && len(errs.Entries)+len(warns) < MaxConsole {
			warns = append(warns, e)
		}
	}
	snap.Warnings = group(warns, r.locate)
	q.Level = ""

	q.Limit = MaxNetwork
	net := r.src.Network(q)
	snap.Requests = len(net.Entries) + net.More
	snap.Endpoints = endpoints(net.Entries, hostOf(page.URL))
	snap.WebSockets = sockets(r.src.WSConnections(capture.Query{URL: w.URLFilter}), hostOf(page.URL))

	if r.perf != nil {
		if p, ok := r.perf(w.URLFilter); ok && !p.At.Before(w.Since) {
			p = p.Rounded()
			snap.Performance = &p
		}
	}

	q.Limit = 1
	all := r.src.Logs(q)
	ws := r.src.WSEvents(q)
	snap.Events = len(all.Entries) + all.More + snap.Requests + len(ws.Entries) + ws.More
	if !w.Since.IsZero() && page.TS.After(w.Since) {
		snap.Events++
	}
	return snap
}

// group folds entries, newest first, into issues by normalised message,
// most frequent first.
func group(entries []capture.LogEntry, locate func(capture.LogEntry) string) []Issue {
	if len(entries) == 0 {
		return nil
	}
	var out []Issue
	at := make(map[string]int, len(entries))
	seen := make(map[string]string, len(entries)) // an error repeats verbatim more often than not
	for _, e := range entries {
		m, ok := seen[e.Message]
		if !ok {
			m = Normalize(e.Message)
			seen[e.Message] = m
		}
		if i, ok := at[m]; ok {
			out[i].Count++
			continue
		}
		at[m] = len(out)
		is := Issue{Message: m, Count: 1}
		if locate != nil && e.Stack != "" {
			is.At = locate(e)
		}
		out = append(out, is)
	}
	slices.SortStableFunc(out, func(a, b Issue) int { return b.Count - a.Count })
	return out
}

// endpoints folds requests, newest first, by method + path.
func endpoints(entries []capture.NetworkEntry, pageHost string) []Endpoint {
	if len(entries) == 0 {
		return nil
	}
	var out []Endpoint
	total := make([]float64, 0, len(entries))
	at := make(map[string]int, len(entries))
	for _, n := range entries {
		e := Endpoint{Method: n.Method, URL: EndpointPath(n.URL, pageHost)}
		i, ok := at[e.key()]
		if !ok {
			e.Status, e.Size = n.Status, n.Size
			if n.Failed && n.Status == 0 {
				e.Error = cmp.Or(capture.Truncate(n.Error, 80), "failed")
			}
			i = len(out)
			at[e.key()] = i
			out = append(out, e)
			total = append(total, 0)
		}
		out[i].Calls++
		total[i] += n.DurationMS
	}
	for i := range out {
		out[i].DurationMS = int(math.Round(total[i] / float64(out[i].Calls)))
		if out[i].Calls == 1 {
			out[i].Calls = 0 // one call is the norm: say nothing
		}
	}
	return out
}

// sockets folds connections by URL: open when any is open, else the state
// of the newest.
func sockets(conns []capture.WSConnection, pageHost string) []WSConn {
	var out []WSConn
	at := map[string]int{}
	// conns come open first, then newest first: the first per URL decides.
	for _, c := range conns {
		u := EndpointPath(c.URL, pageHost)
		if _, ok := at[u]; ok {
			continue
		}
		at[u] = len(out)
		out = append(out, WSConn{URL: u, State: c.State, MessageRate: rate(c)})
	}
	return out
}

// rate is messages per second from open to close (or the last message);
// 0 when the connection lived under a second.
func rate(c capture.WSConnection) float64 {
	end := c.LastMsg
	if c.Closed != nil {
		end = c.Closed
	}
	if end == nil {
		return 0
	}
	secs := end.Sub(c.Opened.Time).Seconds()
	if secs < 1 {
		return 0
	}
	return round(float64(c.In+c.Out)/secs, 1)
}

// round keeps n decimals.
func round(v float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(v*p) / p
}

// IssuePair is one issue compared; Before or After is nil on the side
// where it was not seen.
type IssuePair struct{ Before, After *Issue }

// MatchIssues pairs issues by message: those of before in their order,
// then those seen only after.
func MatchIssues(before, after []Issue) []IssuePair {
	return match(before, after, func(i Issue) string { return i.Message },
		func(b, a *Issue) IssuePair { return IssuePair{b, a} })
}

// EndpointPair is one endpoint compared; Before or After is nil on the side
// where it was not called.
type EndpointPair struct{ Before, After *Endpoint }

// MatchEndpoints pairs endpoints by method + path, like MatchIssues.
func MatchEndpoints(before, after []Endpoint) []EndpointPair {
	return match(before, after, Endpoint.key, func(b, a *Endpoint) EndpointPair { return EndpointPair{b, a} })
}

func match[T, P any](before, after []T, key func(T) string, pair func(b, a *T) P) []P {
	at := make(map[string]int, len(after))
	for i := range after {
		at[key(after[i])] = i
	}
	used := make([]bool, len(after))
	out := make([]P, 0, len(before)+len(after))
	for i := range before {
		var a *T
		if j, ok := at[key(before[i])]; ok {
			a, used[j] = &after[j], true
		}
		out = append(out, pair(&before[i], a))
	}
	for j := range after {
		if !used[j] {
			out = append(out, pair(nil, &after[j]))
		}
	}
	return out
}

// SocketPair is one WebSocket URL compared; Before or After is nil on the
// side where it was not connected.
type SocketPair struct{ Before, After *WSConn }

// MatchSockets pairs WebSocket connections by URL, like MatchIssues.
func MatchSockets(before, after []WSConn) []SocketPair {
	return match(before, after, func(c WSConn) string { return c.URL }, func(b, a *WSConn) SocketPair { return SocketPair{b, a} })
}
