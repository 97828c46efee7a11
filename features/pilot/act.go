package pilot

import (
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gasoline-dev/gasoline/features/problem"
)

// Acts are the AI's actions in the page, after the pilot's older ones.
var Acts = []string{"navigate", "reload", "back", "forward", "click", "type", "press_key", "select", "hover", "scroll", "wait_for"}

// TabActions open and close an AI session's own tab.
var TabActions = []string{"new_tab", "close_tab"}

// Limits of the actions.
const (
	DefaultWaitMS = 5000
	MaxWaitMS     = 30000
	MaxTypeChars  = 10000
	// MaxInteractive is the most elements one interactive answer lists.
	MaxInteractive = 200
	// SettleMax is the most an action's answer waits for the page to
	// settle (no request in flight, the DOM quiet for 300 ms).
	SettleMax     = 2 * time.Second
	actTimeout    = 15 * time.Second
	actReplyGrace = 3 * time.Second
)

// IsAct says whether name is one of Acts.
func IsAct(name string) bool {
	for _, a := range Acts {
		if a == name {
			return true
		}
	}
	return false
}

// Act holds what an action of Acts reads; Action.Selector is its CSS
// target.
type Act struct {
	// Text is a target's visible text or accessible name; for type, what
	// to type; for wait_for, the text awaited.
	Text   string `json:"text,omitempty"`
	Ref    string `json:"ref,omitempty"`
	URL    string `json:"url,omitempty"`
	Clear  *bool  `json:"clear,omitempty"`
	Submit bool   `json:"submit,omitempty"`
	Key    string `json:"key,omitempty"`
	// K is Key parsed, as the extension sends it.
	K     *Key   `json:"k,omitempty"`
	Value string `json:"value,omitempty"`
	To    string `json:"to,omitempty"`
	State string `json:"state,omitempty"`
	// Describe asks the extension only to find and name the target, for the
	// human's approval: nothing is done.
	Describe bool `json:"describe,omitempty"`
}

// Targeted says whether the action acts on an element rather than the
// page (scroll to an end, a key to whatever has the focus).
func (a Action) Targeted() bool {
	switch a.Name {
	case "click", "type", "select", "hover":
		return true
	case "scroll", "press_key":
		return a.Selector != "" || a.Ref != "" || (a.Name == "press_key" && a.Text != "")
	}
	return false
}

// Target says what the action aims at, for the audit and the human.
func (a Action) Target() string {
	switch {
	case a.Ref != "":
		return "ref " + a.Ref
	case a.Selector != "":
		return a.Selector
	case a.Text != "" && a.Name != "type" && a.Name != "wait_for":
		return "text " + quote(a.Text)
	case a.Name == "wait_for" && a.Text != "":
		return "text " + quote(a.Text)
	case a.Name == "navigate":
		return a.URL
	case a.Name == "scroll":
		return a.To
	}
	return ""
}

func quote(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:60]) + "…"
	}
	return `"` + s + `"`
}

func bad(format string, v ...any) error { return problem.New(problem.InvalidParam, format, v...) }

func (a *Action) checkAct() error {
	targets := 0
	for _, t := range []string{a.Selector, a.Ref} {
		if t != "" {
			targets++
		}
	}
	if a.Text != "" && a.Name != "type" && a.Name != "wait_for" {
		targets++
	}
	if targets > 1 {
		return bad("give one target: selector, text or ref")
	}
	if len(a.Ref) > 40 {
		return bad("a ref is a short name from analyze interactive, not %s", quote(a.Ref))
	}
	if a.Selector != "" && strings.TrimSpace(a.Selector) == "" {
		return bad("selector is blank")
	}
	switch a.Name {
	case "navigate", "new_tab":
		if a.URL == "" {
			return bad("url is required for %s", a.Name)
		}
		u, err := url.Parse(a.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("navigate goes to http:// and https:// addresses only, not %s", quote(a.URL))
		}
	case "reload", "back", "forward":
	case "click", "hover":
		if targets == 0 {
			return bad("%s needs a target: selector, text or ref", a.Name)
		}
	case "type":
		if targets == 0 {
			return bad("type needs a target: selector or ref (text is what to type)")
		}
		if a.Text == "" {
			return bad("text (what to type) is required for type")
		}
		if utf8.RuneCountInString(a.Text) > MaxTypeChars {
			return bad("text is longer than %d characters", MaxTypeChars)
		}
	case "select":
		if targets == 0 {
			return bad("select needs a target: selector, text or ref")
		}
		if a.Value == "" {
			return bad("value (an option's value or label) is required for select")
		}
	case "press_key":
		k, err := ParseKey(a.Key)
		if err != nil {
			return err
		}
		a.K = &k
	case "scroll":
		if (targets == 0) == (a.To == "") {
			return bad("scroll needs a target (selector, text or ref) or to (top or bottom), not both")
		}
	case "wait_for":
		if (a.Text == "") == (a.Selector == "") {
			return bad("wait_for needs text or selector, one of them")
		}
		if a.Ref != "" {
			return bad("wait_for waits for text or a selector, not a ref")
		}
		if a.State == "" {
			a.State = "visible"
		}
		if a.TimeoutMS == 0 {
			a.TimeoutMS = DefaultWaitMS
		}
		if a.TimeoutMS > MaxWaitMS {
			return bad("timeout_ms for wait_for must be at most %d", MaxWaitMS)
		}
	}
	if a.State != "" && a.Name != "wait_for" {
		return bad("state is read by wait_for only")
	}
	return nil
}

// SameOrigin says whether a navigation to the action's url stays on the
// page's origin.
func SameOrigin(page, to string) bool {
	p, err1 := url.Parse(page)
	t, err2 := url.Parse(to)
	return err1 == nil && err2 == nil && p.Scheme == t.Scheme && p.Host == t.Host && p.Host != ""
}
