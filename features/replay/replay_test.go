package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/capture"
)

var t0 = time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)

func at(ms int) capture.Time { return capture.Time{Time: t0.Add(time.Duration(ms) * time.Millisecond)} }

// A shop flow: the human typed the address, filled a quantity and a
// password, chose a size, clicked Add, then Checkout, which loaded a page.
func shopFlow() []capture.Action {
	return []capture.Action{
		{TS: at(0), Type: "navigation", URL: "http://shop.test/old", Load: true},
		{TS: at(500), Type: "click", Selector: "#old", Text: "Old"},
		{TS: at(10000), Type: "navigation", URL: "http://shop.test/", Load: true},
		{TS: at(11000), Type: "input", Selector: "#qty", InputType: "number", Value: "3"},
		{TS: at(11500), Type: "input", Selector: "#pw", InputType: "password"},
		{TS: at(11700), Type: "input", Selector: "#size", InputType: "select-one", Value: "l"},
		{TS: at(11800), Type: "click", Selector: "#retry", Text: "Retry", Source: "ai"},
		{TS: at(12000), Type: "click", Selector: "#add", Text: "Add"},
		{TS: at(12100), Type: "navigation", URL: "http://shop.test/#added"},
		{TS: at(13000), Type: "keypress", Selector: "#coupon", Text: "Enter"},
		{TS: at(13001), Type: "submit", Selector: "#f"},
		{TS: at(14000), Type: "click", Selector: "#checkout", Text: "Checkout"},
		{TS: at(14300), Type: "navigation", URL: "http://shop.test/checkout", Load: true},
	}
}

func TestFlowStartsAtTheHumansOwnLoad(t *testing.T) {
	acts := shopFlow()
	if i := FlowStart(acts); i != 2 {
		t.Fatalf("flow start %d, want 2 (the load after the click on #old is the click's; the checkout load is Checkout's)", i)
	}
	if i := FlowStart(acts[:2]); i != 0 {
		t.Fatalf("one load: start %d", i)
	}
	if i := FlowStart(nil); i != -1 {
		t.Fatalf("nothing: %d", i)
	}
}

func TestPlanReplaysTheHumansStepsNeverASecret(t *testing.T) {
	steps, cut := Plan(shopFlow()[2:])
	var got []string
	for _, s := range steps {
		got = append(got, s.Describe())
	}
	want := []string{
		"navigate http://shop.test/",
		`type #qty = "3"`,
		"type #pw (skipped: a secret field: never recorded, never replayed)",
		`select #size = "l"`,
		`click #add "Add"`,
		"press_key #coupon Enter",
		`click #checkout "Checkout"`,
	}
	if cut != 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, s := range steps {
		if s.N != i+1 {
			t.Fatalf("step %d numbered %d", i, s.N)
		}
	}
}

func TestPlanIsBounded(t *testing.T) {
	acts := []capture.Action{{TS: at(0), Type: "navigation", URL: "http://a.test/", Load: true}}
	for i := 0; i < MaxSteps+5; i++ {
		acts = append(acts, capture.Action{TS: at(i + 1), Type: "click", Selector: "#b"})
	}
	steps, cut := Plan(acts)
	if len(steps) != MaxSteps || cut != 6 {
		t.Fatalf("%d steps, %d cut", len(steps), cut)
	}
}
