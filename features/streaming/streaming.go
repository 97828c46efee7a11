// Package streaming tells the AI about significant browser events before it
// asks: every captured entry passes through Observe, the significance
// filters pick the few worth an interruption (a new error, a 5xx, a page
// twice as slow as usual, a user clicking a dead button), and the throttle
// merges them into at most one notification per throttle period, twelve a
// minute.
//
// Delivery is pull-based so that the package owns no goroutine and no
// timer: Observe only records, Tick(now) returns the notification due at
// now (if any) and when to call it next. Run is the one driver loop a
// server needs; it returns when its context ends. Tests drive Observe and
// Tick with an injected clock and never sleep.
package streaming

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/problem"
)

// The event categories, as configure{action:"streaming"} names them.
const (
	Errors          = "errors"
	NetworkErrors   = "network_errors"
	Performance     = "performance"
	UserFrustration = "user_frustration"
	Security        = "security"
)

// Categories lists every category in a fixed order (the enum of "events").
var Categories = []string{Errors, NetworkErrors, Performance, UserFrustration, Security}

// Throttle bounds, fixed by the spec.
const (
	DefaultThrottle = 5 // seconds
	MinThrottle     = 1
	MaxThrottle     = 60
	MaxURLFilter    = 500 // characters, as the tool's schema counts them
)

// Config is the streaming configuration, as configure reports it.
type Config struct {
	Enabled         bool     `json:"enabled"`
	Events          []string `json:"events"`
	ThrottleSeconds int      `json:"throttle_seconds"`
	URLFilter       string   `json:"url_filter,omitempty"`
}

// Update is one configure call: nil or zero fields keep their value.
type Update struct {
	Enabled         *bool
	Events          []string // nil: unchanged; empty: all categories
	ThrottleSeconds int      // 0: unchanged; else 1–60
	URLFilter       *string  // "" clears the filter
}

// SecretCheck names the kind of credential found in a request's URL or body,
// or returns "" when there is none. The security package supplies it; with
// none, the security category never fires.
type SecretCheck func(method, url, body string) string

// Options configure a Streamer. Zero values are fine.
type Options struct {
	Now     func() time.Time // the clock; time.Now when nil
	Secrets SecretCheck
	// Concerns says whether what happened in a tab concerns this streamer's
	// session (several AIs on several tabs); nil: every tab does. An entry
	// of no known tab always does.
	Concerns func(tab int) bool
}

// Streamer filters ingested entries and throttles what it notifies. Safe for
// concurrent use; off until configured on.
type Streamer struct {
	on       atomic.Bool // mirrors cfg.Enabled: the whole cost of Observe while off
	now      func() time.Time
	secrets  SecretCheck
	concerns func(tab int) bool
	wake     chan struct{} // cap 1: tells Run the next due time may have moved

	mu   sync.Mutex
	cfg  Config
	cats uint8 // bit per enabled category
	st   *state
}

// New returns a disabled streamer.
func New(o Options) *Streamer {
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Streamer{now: o.Now, secrets: o.Secrets, concerns: o.Concerns, wake: make(chan struct{}, 1)}
	s.cfg = Config{Events: slices.Clone(Categories), ThrottleSeconds: DefaultThrottle}
	s.cats = catMask(Categories)
	return s
}

// Config returns the current configuration.
func (s *Streamer) Config() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cfg
	c.Events = slices.Clone(c.Events)
	return c
}

// Configure applies u all or nothing and returns the resulting config.
// Turning streaming off forgets everything it held, pending events included:
// the AI asked for silence. Turning it on starts from a clean slate.
func (s *Streamer) Configure(u Update) (Config, error) {
	var events []string
	if u.Events != nil {
		if len(u.Events) == 0 {
			u.Events = Categories
		}
		for _, e := range u.Events {
			if !slices.Contains(Categories, e) {
				return Config{}, problem.New(problem.InvalidParam, "events: %q is not one of %s", e, strings.Join(Categories, ", "))
			}
		}
		// Keep the fixed order and drop repeats, so the result reads the same however asked.
		for _, c := range Categories {
			if slices.Contains(u.Events, c) {
				events = append(events, c)
			}
		}
	}
	if u.ThrottleSeconds != 0 && (u.ThrottleSeconds < MinThrottle || u.ThrottleSeconds > MaxThrottle) {
		return Config{}, problem.New(problem.InvalidParam, "throttle_seconds must be between %d and %d", MinThrottle, MaxThrottle)
	}
	if u.URLFilter != nil && utf8.RuneCountInString(*u.URLFilter) > MaxURLFilter {
		return Config{}, problem.New(problem.InvalidParam, "url_filter is longer than %d characters", MaxURLFilter)
	}
	s.mu.Lock()
	if events != nil {
		s.cfg.Events, s.cats = events, catMask(events)
	}
	if u.ThrottleSeconds != 0 {
		s.cfg.ThrottleSeconds = u.ThrottleSeconds
	}
	if u.URLFilter != nil {
		s.cfg.URLFilter = *u.URLFilter
	}
	if u.Enabled != nil && *u.Enabled != s.cfg.Enabled {
		s.cfg.Enabled = *u.Enabled
		s.st = nil
		if s.cfg.Enabled {
			s.st = newState()
		}
		s.on.Store(s.cfg.Enabled)
	}
	c := s.cfg
	c.Events = slices.Clone(c.Events)
	s.mu.Unlock()
	s.kick() // the throttle may have changed, or there is nothing left to wait for
	return c, nil
}

func catMask(events []string) uint8 {
	var m uint8
	for i, c := range Categories {
		if slices.Contains(events, c) {
			m |= 1 << i
		}
	}
	return m
}

func (s *Streamer) wants(category string) bool {
	return s.cats&(1<<slices.Index(Categories, category)) != 0
}

// ObserveEvent is Observe for capture.Store's Subscribe:
// store.Subscribe(streamer.ObserveEvent). While streaming is off it costs
// one atomic load and allocates nothing.
func (s *Streamer) ObserveEvent(ev capture.Event) {
	if s.on.Load() {
		s.Observe(ev.Entry)
	}
}

// Observe looks at one ingested entry: a capture.Event (as capture.Store's
// Subscribe delivers), or a capture.LogEntry, NetworkEntry, NetworkBody,
// Action, or this package's PageLoad, LongTask, FormSubmit. Other types are
// ignored. It records and returns: delivery is Run's (or Tick's) business.
func (s *Streamer) Observe(entry any) {
	if !s.on.Load() {
		return
	}
	if ev, ok := entry.(capture.Event); ok {
		entry = ev.Entry
	}
	if quiet(entry) {
		return
	}
	if tab := tabOf(entry); tab != 0 && s.concerns != nil && !s.concerns(tab) {
		return
	}
	s.mu.Lock()
	if s.st == nil { // turned off since the load above
		s.mu.Unlock()
		return
	}
	changed := s.observe(entry, s.now())
	s.mu.Unlock()
	if changed {
		s.kick()
	}
}

// Tick returns the notification due at now, if any, and the time Tick
// should next be called (zero when nothing is waiting). At most one
// notification is due at a time: sending one restarts the throttle.
func (s *Streamer) Tick(now time.Time) (*Notification, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		return nil, time.Time{}
	}
	s.expireSubmits(now)
	n := s.st.take(now, time.Duration(s.cfg.ThrottleSeconds)*time.Second)
	return n, s.st.next(time.Duration(s.cfg.ThrottleSeconds) * time.Second)
}

// Run delivers notifications to sink as they fall due until ctx ends. sink
// runs on Run's goroutine and should not block for long: later
// notifications wait for it. Start at most one Run per Streamer.
func (s *Streamer) Run(ctx context.Context, sink func(Notification)) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		n, next := s.Tick(s.now())
		if n != nil {
			sink(*n)
		}
		timer.Stop()
		if !next.IsZero() {
			timer.Reset(max(next.Sub(s.now()), time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-timer.C:
		}
	}
}

func (s *Streamer) kick() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// fmtMS renders a duration in milliseconds the way a person says it.
func fmtMS(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.1fs", ms/1000)
	}
	return fmt.Sprintf("%dms", int(ms+0.5))
}
