// Package origins decides which browser extensions besides Gasoline's pinned
// Chrome build the server answers. A Firefox extension's origin is
// moz-extension://<uuid>, random per install, so no id can be pinned: the
// first time an unknown extension origin calls, it waits here for the human
// to accept or refuse it, and gets nothing meanwhile. The human's answers
// are kept (features/decisions persists them per port); nothing here knows
// HTTP.
package origins

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
)

// MaxPending bounds the origins of one kind (moz-extension, chrome-extension)
// waiting for the human. The newest are kept: an origin that comes when its
// kind is full takes the place of the one heard from least recently, so a
// burst of forged origins cannot keep a real install off the list (a real
// one calls again every few seconds, and each call makes it the newest).
const MaxPending = 8

// PendingTTL is how long an origin waits after it last called: forged
// ones that call once leave the list on their own.
const PendingTTL = 10 * time.Minute

// MaxDecided bounds the remembered answers; the oldest go first.
const MaxDecided = 64

// Verdict is what an origin may do now.
type Verdict int

// Verdicts.
const (
	// NotExtension: not an extension's origin (a web page, or garbage).
	NotExtension Verdict = iota
	// Waiting: an extension origin the human has not answered yet.
	Waiting
	// Refused: the human refused it.
	Refused
	// Accepted: the human accepted it.
	Accepted
)

// Request is an extension origin waiting for the human.
type Request struct {
	Origin string `json:"origin"`
	// Browser names the browser that sent it, from its User-Agent.
	Browser string    `json:"browser"`
	At      time.Time `json:"at"`
	seen    time.Time // its last call
}

// Decision is one answer of the human.
type Decision struct {
	Origin   string    `json:"origin"`
	Accepted bool      `json:"accepted"`
	Browser  string    `json:"browser,omitempty"`
	At       time.Time `json:"at"`
}

// View is the trust list as the dashboard shows it.
type View struct {
	Pending []Request  `json:"pending"`
	Decided []Decision `json:"decided,omitempty"`
	// Evicted counts the waiting origins that made room for newer ones of
	// their kind since the server started.
	Evicted int `json:"evicted,omitempty"`
}

// ErrNotExtension is Decide's answer for an origin no extension could have.
var ErrNotExtension = errors.New("not an extension origin (want moz-extension://… or chrome-extension://…)")

// Trust holds the pending origins and the human's answers. Safe for
// concurrent use.
type Trust struct {
	now func() time.Time

	mu       sync.Mutex
	pending  []Request // least recently heard from first
	evicted  int
	decided  []Decision // oldest first
	onChange []func(View)
}

// New returns an empty trust list; now is the clock (nil: time.Now).
func New(now func() time.Time) *Trust {
	if now == nil {
		now = time.Now
	}
	return &Trust{now: now}
}

// IsExtension reports whether origin is a browser extension's: a scheme of
// extensions and an id or uuid of 16 to 64 characters from [a-z0-9-],
// nothing else (no path, no port). Checked by hand: the same rule as a
// regular expression cost every process start ~0.8 ms to compile.
func IsExtension(origin string) bool {
	id, ok := strings.CutPrefix(origin, "moz-extension://")
	if !ok {
		id, ok = strings.CutPrefix(origin, "chrome-extension://")
	}
	if !ok || len(id) < 16 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Verdict says what origin may do, without adding it to the pending list.
func (t *Trust) Verdict(origin string) Verdict {
	if !IsExtension(origin) {
		return NotExtension
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.verdictLocked(origin)
}

func (t *Trust) verdictLocked(origin string) Verdict {
	if i := t.decidedAt(origin); i >= 0 {
		if t.decided[i].Accepted {
			return Accepted
		}
		return Refused
	}
	return Waiting
}

// Check is Verdict for an origin calling now: an extension origin the
// human has not answered joins the pending list, or, already there, becomes
// its newest. fresh reports that it joined while its kind had room: the
// caller audits those, and an origin that had to evict another is counted
// in View.Evicted instead, so a flood of forged origins costs the audit
// nothing.
func (t *Trust) Check(origin, userAgent string) (v Verdict, fresh bool) {
	if !IsExtension(origin) {
		return NotExtension, false
	}
	t.mu.Lock()
	now := t.now()
	t.expireLocked(now)
	v = t.verdictLocked(origin)
	if v != Waiting {
		t.mu.Unlock()
		return v, false
	}
	if i := slices.IndexFunc(t.pending, func(r Request) bool { return r.Origin == origin }); i >= 0 {
		r := t.pending[i]
		r.seen = now
		t.pending = append(slices.Delete(t.pending, i, i+1), r)
		t.mu.Unlock()
		return v, false
	}
	k := kind(origin)
	n, first := 0, -1
	for i, r := range t.pending {
		if kind(r.Origin) == k {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	fresh = n < MaxPending
	if !fresh {
		t.pending = slices.Delete(t.pending, first, first+1)
		t.evicted++
	}
	t.pending = append(t.pending, Request{Origin: origin, Browser: Browser(userAgent), At: now.UTC(), seen: now})
	view, subs := t.viewLocked(), slices.Clone(t.onChange)
	t.mu.Unlock()
	for _, f := range subs {
		f(view)
	}
	return v, fresh
}

// expireLocked drops the origins not heard from within PendingTTL.
func (t *Trust) expireLocked(now time.Time) {
	t.pending = slices.DeleteFunc(t.pending, func(r Request) bool { return now.Sub(r.seen) > PendingTTL })
}

// kind is an extension origin's scheme.
func kind(origin string) string {
	k, _, _ := strings.Cut(origin, "://")
	return k
}

// Decide records the human's answer for origin, pending or not (the
// dashboard can also take back an earlier answer), and returns the browser
// it came from when it was pending.
func (t *Trust) Decide(origin string, accept bool) (string, error) {
	if !IsExtension(origin) {
		return "", ErrNotExtension
	}
	t.mu.Lock()
	browser := ""
	if i := slices.IndexFunc(t.pending, func(r Request) bool { return r.Origin == origin }); i >= 0 {
		browser = t.pending[i].Browser
		t.pending = slices.Delete(t.pending, i, i+1)
	}
	if i := t.decidedAt(origin); i >= 0 {
		if browser == "" {
			browser = t.decided[i].Browser
		}
		t.decided = slices.Delete(t.decided, i, i+1)
	}
	t.decided = append(t.decided, Decision{Origin: origin, Accepted: accept, Browser: browser, At: t.now().UTC()})
	if len(t.decided) > MaxDecided {
		t.decided = slices.Delete(t.decided, 0, len(t.decided)-MaxDecided)
	}
	view, subs := t.viewLocked(), slices.Clone(t.onChange)
	t.mu.Unlock()
	for _, f := range subs {
		f(view)
	}
	return browser, nil
}

// Restore brings back the answers a previous server on this port kept;
// anything that is not an extension origin is dropped.
func (t *Trust) Restore(ds []Decision) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.decided = t.decided[:0]
	for _, d := range ds {
		if IsExtension(d.Origin) && t.decidedAt(d.Origin) < 0 {
			t.decided = append(t.decided, d)
		}
	}
	if len(t.decided) > MaxDecided {
		t.decided = slices.Delete(t.decided, 0, len(t.decided)-MaxDecided)
	}
}

// Decided is the human's answers, oldest first (to persist them).
func (t *Trust) Decided() []Decision {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.decided)
}

// View is the pending origins and the answers.
func (t *Trust) View() View {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.expireLocked(t.now())
	return t.viewLocked()
}

func (t *Trust) viewLocked() View {
	return View{Pending: append([]Request{}, t.pending...), Decided: slices.Clone(t.decided), Evicted: t.evicted}
}

// OnChange registers f, called (outside the lock) with the new view when an
// origin starts waiting or the human answers one.
func (t *Trust) OnChange(f func(View)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.onChange = append(t.onChange, f)
}

func (t *Trust) decidedAt(origin string) int {
	return slices.IndexFunc(t.decided, func(d Decision) bool { return d.Origin == origin })
}

// browsers are the User-Agent product tokens worth naming, most specific
// first (Edge's and Opera's agents also say Chrome; Chrome's says Safari).
var browsers = []struct{ token, name string }{
	{"Firefox/", "Firefox"}, {"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Chrome/", "Chrome"}, {"Safari/", "Safari"},
}

// Browser names the browser of a User-Agent ("Firefox 153"), or the agent
// itself, cut short, when it names none of the known ones.
func Browser(userAgent string) string {
	for _, b := range browsers {
		if _, rest, ok := strings.Cut(userAgent, b.token); ok {
			major, _, _ := strings.Cut(rest, ".")
			major, _, _ = strings.Cut(major, " ")
			return strings.TrimSpace(b.name + " " + major)
		}
	}
	ua := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, userAgent)
	if len(ua) > 80 {
		ua = ua[:80] + "…"
	}
	if ua == "" {
		return "unknown browser"
	}
	return ua
}
