// Package testgen writes a Playwright test (@playwright/test, TypeScript)
// from a recorded browser session: the user's actions with resilient
// locators, waits for the requests each action was seen to cause,
// assertions on their status and response shape, on the URL and on the DOM
// as it stood, optional API fixtures and screenshots. Each assertion says
// how far to trust it.
package testgen

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/redact"
)

// Session is what the test is generated from. Slices may come newest or
// oldest first; Generate orders them by time, actions of the same
// millisecond by their page's sequence (else as stored).
type Session struct {
	Actions []capture.Action
	Network []capture.NetworkEntry
	Bodies  []capture.NetworkBody
	// DOM is the page as it stood when the test was asked for (optional):
	// its headings and test-id elements become the final assertions.
	DOM *DOM
}

// DOM is the state of the page at the end of the session.
type DOM struct {
	URL      string
	Headings []browser.Heading
	// Elements are elements carrying a data-testid attribute, as a DOM
	// query for [data-testid] answers them.
	Elements []browser.Element
}

// Options shape the generated test.
type Options struct {
	// Name is the test's title (default: "recorded flow on <first path>").
	Name string
	// BaseURL replaces the recorded origin (default: the recorded one).
	BaseURL string
	// MockAPI serves captured responses with page.route, so the test runs
	// without the backend.
	MockAPI bool
	// Screenshots adds toHaveScreenshot() after each navigation.
	Screenshots bool
	// URLFilter keeps actions and requests of pages whose URL contains it.
	URLFilter string
	// IncludeAI replays the AI's own actions too (capture.Action.Source).
	IncludeAI bool
}

// Result is the generated test and what it holds.
type Result struct {
	Filename   string `json:"filename"`
	Script     string `json:"script"`
	Steps      int    `json:"steps"`
	Assertions int    `json:"assertions"`
	Mocks      int    `json:"mocks,omitempty"`
	// Placeholders are the environment variables the test reads for values
	// Gasoline never records (passwords, redacted fields).
	Placeholders []string `json:"placeholders,omitempty"`
}

// ErrNoActions is returned when no recorded action matches: there is no
// flow to turn into a test.
var ErrNoActions = errors.New("no recorded user actions (enable action capture with configure{action:\"capture\"} and use the page first)")

// Timing windows read from the recording.
const (
	// causeWindow: a request or navigation this soon after an action (and
	// before the next one) is taken as that action's effect.
	causeWindow = 5 * time.Second
	// maxWaits bounds the responses one step waits for.
	maxWaits = 3
	// Bounds of the final DOM assertions.
	maxHeadings = 5
	maxTestIDs  = 10
	maxText     = 80
)

// redacted is how the capture scrubs secret values.
const redacted = redact.Redacted

// Generate writes the test. It fails with ErrNoActions when the session
// holds no action to replay.
func Generate(s Session, o Options) (Result, error) {
	g := newGen(s, o)
	if len(g.actions) == 0 {
		if g.aiLeft > 0 {
			return Result{}, fmt.Errorf("%w; %d of the AI's actions left out (include_ai:true replays them)", ErrNoActions, g.aiLeft)
		}
		return Result{}, ErrNoActions
	}
	g.write()
	return Result{Filename: slug(g.name) + ".spec.ts", Script: g.out.String(), Steps: g.steps,
		Assertions: g.asserts, Mocks: g.mocks, Placeholders: g.placeholders}, nil
}

// keep reports whether an entry of page (or, without one, of url) passes
// the filter.
func keep(filter, page, u string) bool {
	if filter == "" {
		return true
	}
	if page != "" {
		return strings.Contains(page, filter)
	}
	return strings.Contains(u, filter)
}

// ordered returns the actions to replay in the order the page saw them,
// oldest first, and how many of the AI's it left out (o.IncludeAI unset).
// The recorder records a field's value before the click or key that
// follows it, with the time of its last keystroke, so time and the page's
// sequence are the order; nothing is moved here.
func ordered(in []capture.Action, o Options) ([]capture.Action, int) {
	var as []capture.Action
	ai := 0
	for _, a := range in {
		if a.Type == "change" {
			a.Type = "input" // a recorder that names change events: same replay
		}
		if !keep(o.URLFilter, a.Page, a.URL) {
			continue
		}
		if a.Source == "ai" && !o.IncludeAI {
			ai++
			continue
		}
		as = append(as, a)
	}
	// The store answers newest first: oldest first keeps, for actions of
	// one millisecond without a sequence (a restored history), the order
	// they were stored in.
	if len(as) > 1 && as[0].TS.After(as[len(as)-1].TS.Time) {
		slices.Reverse(as)
	}
	slices.SortStableFunc(as, func(a, b capture.Action) int {
		if c := a.TS.Compare(b.TS.Time); c != 0 {
			return c
		}
		if a.Order.Doc != "" && a.Order.Doc == b.Order.Doc {
			return cmp.Compare(a.Order.Seq, b.Order.Seq)
		}
		return 0
	})
	as = withNavigations(as)
	var out []capture.Action
	for i, a := range as {
		next := capture.Action{}
		if i+1 < len(as) {
			next = as[i+1]
		}
		switch {
		case a.Type == "input" && next.Type == "input" && next.Selector == a.Selector:
			continue // the later value wins
		case a.Type == "click" && next.Type == "input" && next.Selector == a.Selector && a.Text == "":
			continue // focusing a field before typing in it
		case a.Type == "submit" && len(out) > 0 && out[len(out)-1].Type == "click" && a.TS.Sub(out[len(out)-1].TS.Time) < time.Second:
			continue // the click submitted the form
		case a.Type == "submit" && len(out) > 0 && out[len(out)-1].Type == "keypress" && out[len(out)-1].Text == "Enter" && a.TS.Sub(out[len(out)-1].TS.Time) < time.Second:
			continue // Enter in a field submitted the form
		case a.Type == "navigation" && len(out) > 0 && out[len(out)-1].Type == "navigation" && out[len(out)-1].URL == a.URL:
			continue
		}
		out = append(out, a)
	}
	return out, ai
}

// withNavigations adds the navigations the recording missed (capture
// started on an open page, or was off while the tab moved): an action on a
// page other than the current one is preceded by a navigation to its page,
// so the test opens the right page or asserts the move.
func withNavigations(as []capture.Action) []capture.Action {
	out := make([]capture.Action, 0, len(as)+1)
	cur := ""
	for _, a := range as {
		if a.Type == "navigation" {
			cur = a.URL
		} else if a.Page != "" && (cur == "" || pathOnly(a.Page) != pathOnly(cur) || originOf(a.Page) != originOf(cur)) {
			cur = a.Page
			out = append(out, capture.Action{TS: capture.Time{Time: a.TS.Add(-time.Millisecond)}, Type: "navigation", URL: a.Page, Page: a.Page, TabID: a.TabID})
		}
		out = append(out, a)
	}
	return out
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimSuffix(b.String(), "-")
	if len(out) > 60 {
		out = strings.TrimSuffix(out[:60], "-")
	}
	if out == "" {
		return "recorded-flow"
	}
	return out
}

// pathOf is a URL's path (with its query), or the raw string when it has
// no origin.
func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
