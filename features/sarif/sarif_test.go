package sarif

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gasoline-dev/gasoline/features/a11y"
)

// schemaPath is the official SARIF 2.1.0 schema, from the npm package
// @microsoft/jest-sarif (installed by `npm ci`, pinned in package.json).
const schemaPath = "../../node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"

func validator(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schemaPath)
	if err != nil {
		t.Fatalf("SARIF schema missing (run npm ci): %v", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func audit() a11y.Result {
	return a11y.Result{
		URL: "http://localhost:3000/signup", Timestamp: "2026-11-22T10:00:00.000Z",
		Violations: []a11y.Rule{
			{ID: "image-alt", Impact: "critical", Help: "Images must have alternative text", Description: "Ensure <img> elements have alternative text",
				HelpURL: "https://dequeuniversity.com/rules/axe/4.14/image-alt", Tags: []string{"wcag2a", "wcag111"}, NodeCount: 1,
				Nodes: []a11y.Node{{Selector: "img.hero", HTML: `<img class="hero" src="/hero.jpg">`, FailureSummary: "Fix any of the following: Element does not have an alt attribute"}}},
			{ID: "color-contrast", Impact: "serious", Help: "Elements must meet minimum color contrast ratio thresholds", NodeCount: 2,
				Nodes: []a11y.Node{{Selector: ".subtle"}, {Selector: "#footer > p"}}},
			{ID: "region", Impact: "moderate", NodeCount: 1, Nodes: []a11y.Node{{Selector: "body > div"}}},
		},
	}
}

func TestFromAuditIsValidSARIF(t *testing.T) {
	b, err := json.Marshal(FromAudit(audit()))
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := validator(t).Validate(v); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v\n%s", err, b)
	}
}

func TestSchemaRejectsBrokenSARIF(t *testing.T) {
	// Proves the validator bites: a result without a message is invalid.
	doc := `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"r","level":"loud"}]}]}`
	v, _ := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if validator(t).Validate(v) == nil {
		t.Fatal("schema accepted an invalid document")
	}
}

func TestFromAuditMapsRulesLevelsAndLocations(t *testing.T) {
	l := FromAudit(audit())
	run := l.Runs[0]
	if len(run.Tool.Driver.Rules) != 3 || len(run.Results) != 4 {
		t.Fatalf("rules %d results %d", len(run.Tool.Driver.Rules), len(run.Results))
	}
	levels := map[string]string{}
	for _, r := range run.Results {
		levels[r.RuleID] = r.Level
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("ruleIndex of %s points at %s", r.RuleID, run.Tool.Driver.Rules[r.RuleIndex].ID)
		}
		if r.Locations[0].PhysicalLocation.ArtifactLocation.URI != "http://localhost:3000/signup" {
			t.Errorf("location: %+v", r.Locations[0])
		}
	}
	if levels["image-alt"] != "error" || levels["color-contrast"] != "error" || levels["region"] != "warning" {
		t.Errorf("levels: %v", levels)
	}
	if got := run.Results[0].Locations[0].LogicalLocations[0].FullyQualifiedName; got != "img.hero" {
		t.Errorf("selector: %q", got)
	}
	if run.Tool.Driver.Rules[0].HelpURI == "" {
		t.Error("helpUri missing")
	}
}
