package streaming

import (
	"fmt"
	"strings"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// Method is the JSON-RPC method of a streamed notification.
const Method = "notifications/gasoline/event"

// Severities of an event.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Event is one significant thing that happened in the browser.
type Event struct {
	Category  string       `json:"category"`
	Severity  string       `json:"severity"`
	Message   string       `json:"message"`
	Timestamp capture.Time `json:"timestamp"`
	// Count is how many times it happened while waiting to be sent (omitted when once).
	Count   int      `json:"count,omitempty"`
	Context *Context `json:"context,omitempty"`

	key key // what dedup and merging compare: the message minus what varies
}

// key identifies an event for dedup: its kind and what names it (message,
// endpoint, selector), without what varies between repeats.
type key struct {
	kind    byte
	a, b, c string
	n       int
}

func cloneKey(k key) key {
	return key{k.kind, strings.Clone(k.a), strings.Clone(k.b), strings.Clone(k.c), k.n}
}

// Context holds the details an event has; every field is optional.
type Context struct {
	Method          string `json:"method,omitempty"`
	URL             string `json:"url,omitempty"`
	Status          int    `json:"status,omitempty"`
	PreviousStatus  int    `json:"previous_status,omitempty"`
	ResponsePreview string `json:"response_preview,omitempty"`
	Source          string `json:"source,omitempty"` // script URL:line:column of an error
	Selector        string `json:"selector,omitempty"`
	Clicks          int    `json:"clicks,omitempty"`
	Action          string `json:"action,omitempty"` // form action
	LoadMS          int    `json:"load_ms,omitempty"`
	BaselineMS      int    `json:"baseline_ms,omitempty"`
	DurationMS      int    `json:"duration_ms,omitempty"`
	Secret          string `json:"secret,omitempty"` // kind of credential
	Page            string `json:"page,omitempty"`
	Tab             int    `json:"tab,omitempty"`
}

// Notification is the params of one notifications/gasoline/event. With one
// event it is that event, as the spec shows it. With several (a batch) the
// top level summarises them (category only when they share it, the worst
// severity, the first timestamp) and Events lists them. Dropped says how
// many events were lost since the last notification because too many
// waited behind the rate cap.
type Notification struct {
	Category  string       `json:"category,omitempty"`
	Severity  string       `json:"severity"`
	Message   string       `json:"message"`
	Timestamp capture.Time `json:"timestamp"`
	Count     int          `json:"count,omitempty"`
	Context   *Context     `json:"context,omitempty"`
	Events    []Event      `json:"events,omitempty"`
	Dropped   int          `json:"dropped,omitempty"`
}

// Params is n as mcp-go's SendNotificationTo* functions take it: the same
// fields as n's JSON, empty ones left out.
func (n Notification) Params() map[string]any {
	m := map[string]any{"severity": n.Severity, "message": n.Message, "timestamp": n.Timestamp}
	if n.Category != "" {
		m["category"] = n.Category
	}
	if n.Count != 0 {
		m["count"] = n.Count
	}
	if n.Context != nil {
		m["context"] = n.Context
	}
	if len(n.Events) > 0 {
		m["events"] = n.Events
	}
	if n.Dropped != 0 {
		m["dropped"] = n.Dropped
	}
	return m
}

// notification merges the events sent together, oldest first.
func notification(events []Event, dropped int) *Notification {
	if len(events) == 1 {
		e := events[0]
		return &Notification{Category: e.Category, Severity: e.Severity, Message: e.Message,
			Timestamp: e.Timestamp, Count: e.Count, Context: e.Context, Dropped: dropped}
	}
	n := &Notification{Category: events[0].Category, Severity: SeverityWarning,
		Timestamp: events[0].Timestamp, Events: events, Dropped: dropped}
	counts := map[string]int{}
	var order []string
	for _, e := range events {
		if e.Severity == SeverityError {
			n.Severity = SeverityError
		}
		if e.Category != n.Category {
			n.Category = ""
		}
		if counts[e.Category] == 0 {
			order = append(order, e.Category)
		}
		counts[e.Category]++
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = c
		if counts[c] > 1 {
			parts[i] = fmt.Sprintf("%s ×%d", c, counts[c])
		}
	}
	n.Message = fmt.Sprintf("%d browser events: %s", len(events), strings.Join(parts, ", "))
	return n
}

// PageLoad is one page load with the baseline the performance feature keeps
// for its URL. Without a baseline (0) a load is never a regression.
type PageLoad struct {
	TS         capture.Time
	URL        string
	LoadMS     float64
	BaselineMS float64
	TabID      int
}

// LongTask is one main-thread task the page's PerformanceObserver reported.
type LongTask struct {
	TS         capture.Time
	DurationMS float64
	Page       string
	TabID      int
}

// FormSubmit is one form submission. A capture.Action of type "submit" is
// one too, without Action or Method.
type FormSubmit struct {
	TS       capture.Time
	Action   string // the form's action URL
	Method   string
	Selector string
	Page     string
	TabID    int
}
