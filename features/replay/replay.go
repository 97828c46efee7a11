// Package replay turns the human's recorded actions into the steps the AI's
// actions replay: the flow's starting address first, then each click, field
// and key as the human did it. Secrets were never recorded with a value, so
// their steps are listed as skipped; nothing here acts or knows MCP.
package replay

import (
	"strings"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/redact"
)

// Limits of one replay.
const (
	MaxSteps = 200
	MaxTime  = 120 * time.Second
	// causedBy is how soon after a click, key or submit a page load counts
	// as its consequence, not a navigation of the human's own.
	causedBy = 2 * time.Second
)

// Step is one thing to replay.
type Step struct {
	N int `json:"n"`
	// Action is an interact action: navigate, click, type, select,
	// press_key.
	Action string `json:"action"`
	// Target is the recorded selector (or the URL of a navigate).
	Target string `json:"target,omitempty"`
	// Text is the recorded visible text of a click's target, its fallback
	// when the selector finds nothing; for type, what to type.
	Text  string `json:"-"`
	Value string `json:"-"`
	Key   string `json:"-"`
	// Skip says why the step is not replayed (a secret field).
	Skip string `json:"-"`
}

// Describe is the step as the human reads it before approving.
func (s Step) Describe() string {
	out := s.Action + " " + s.Target
	switch {
	case s.Skip != "":
		out += " (skipped: " + s.Skip + ")"
	case s.Action == "type":
		out += " = " + quote(s.Text)
	case s.Action == "select":
		out += " = " + quote(s.Value)
	case s.Action == "press_key":
		out += " " + s.Key
	case s.Action == "click" && s.Text != "":
		out += " " + quote(s.Text)
	}
	return out
}

func quote(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return `"` + s + `"`
}

// FlowStart is the index in actions (oldest first) where the human's
// latest flow begins: the last page load that no click, key or submit of
// theirs caused just before (an address-bar navigation or a reload). -1
// when there is none.
func FlowStart(actions []capture.Action) int {
	for i := len(actions) - 1; i >= 0; i-- {
		a := actions[i]
		if a.Type != "navigation" || a.Source == "ai" || !a.Load {
			continue
		}
		if !causedByHuman(actions[:i], a.TS.Time) {
			return i
		}
	}
	return -1
}

func causedByHuman(before []capture.Action, at time.Time) bool {
	for j := len(before) - 1; j >= 0; j-- {
		b := before[j]
		if at.Sub(b.TS.Time) > causedBy {
			return false
		}
		if b.Source != "ai" && (b.Type == "click" || b.Type == "submit" || b.Type == "keypress") {
			return true
		}
	}
	return false
}

// Plan is the steps that replay actions (oldest first, from the flow's
// start): the first navigation is the flow's address; later loads the
// human's own steps caused are not steps. The AI's own actions are never
// replayed. More than MaxSteps: the rest is cut and counted.
func Plan(actions []capture.Action) (steps []Step, cut int) {
	add := func(s Step) {
		if len(steps) == MaxSteps {
			cut++
			return
		}
		s.N = len(steps) + 1
		steps = append(steps, s)
	}
	for i, a := range actions {
		if a.Source == "ai" {
			continue
		}
		switch a.Type {
		case "navigation":
			// The flow's first address, and a load the human made themselves
			// later on; pushState and the loads their steps caused follow
			// from the steps.
			if len(steps) == 0 || (a.Load && !causedByHuman(actions[:i], a.TS.Time)) {
				add(Step{Action: "navigate", Target: a.URL})
			}
		case "click":
			add(Step{Action: "click", Target: a.Selector, Text: a.Text})
		case "keypress":
			add(Step{Action: "press_key", Target: a.Selector, Key: a.Text})
		case "input":
			add(inputStep(a))
		}
	}
	return steps, cut
}

func inputStep(a capture.Action) Step {
	t := strings.ToLower(a.InputType)
	switch {
	case redact.IsSecretField(a.InputType, a.Selector) || (a.Value == "" && t == "password"):
		return Step{Action: "type", Target: a.Selector, Skip: "a secret field: never recorded, never replayed"}
	case strings.HasPrefix(t, "select"):
		return Step{Action: "select", Target: a.Selector, Value: a.Value}
	case t == "checkbox" || t == "radio":
		return Step{Action: "click", Target: a.Selector}
	case t == "file":
		return Step{Action: "type", Target: a.Selector, Skip: "a file picker: the AI never picks a file"}
	}
	if a.Value == "" {
		return Step{Action: "type", Target: a.Selector, Skip: "emptied: there is nothing to type"}
	}
	return Step{Action: "type", Target: a.Selector, Text: a.Value}
}
