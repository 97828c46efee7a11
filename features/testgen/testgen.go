// Package testgen writes a Playwright test (@playwright/test, TypeScript)
// from a recorded browser session: the user's actions with resilient
// locators, waits for the requests each action was seen to cause,
// assertions on their status and response shape, on the URL and on the DOM
// as it stood, optional API fixtures and screenshots. Each assertion says
// how far to trust it.
package testgen

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/redact"
)

// Session is what the test is generated from. Slices may come newest or
// oldest first; Generate orders them by time.
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

// ordered returns the actions to replay, oldest first, cleaned of what the
// recorder's timing distorts.
func ordered(in []capture.Action, filter string) []capture.Action {
	var as []capture.Action
	for _, a := range in {
		if a.Type == "change" {
			a.Type = "input" // a recorder that names change events: same replay
		}
		if keep(filter, a.Page, a.URL) {
			as = append(as, a)
		}
	}
	slices.SortStableFunc(as, func(a, b capture.Action) int { return a.TS.Compare(b.TS.Time) })
	// A field's value is recorded when its debounce ends or when its form
	// is submitted; a quick click on the submit button therefore lands
	// before the input it sent. Replay types first, then clicks.
	for i := 1; i < len(as); i++ {
		if as[i].Type != "input" || !submitFollows(as, i) {
			continue
		}
		j := i
		for j > 0 && as[j-1].Type == "click" && as[j].TS.Sub(as[j-1].TS.Time) < time.Second {
			as[j-1], as[j] = as[j], as[j-1]
			j--
		}
	}
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
	return out
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

// submitFollows reports whether a submit comes right after as[i] (other
// inputs flushed with it aside).
func submitFollows(as []capture.Action, i int) bool {
	for k := i + 1; k < len(as); k++ {
		switch as[k].Type {
		case "submit":
			return true
		case "input":
			continue
		}
		return false
	}
	return false
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
