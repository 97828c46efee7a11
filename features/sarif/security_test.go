package sarif

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/security"
)

const leakedKey = "Zk29xQpL77mNbV31rT"

func securityReport() security.Report {
	return security.Audit(security.Input{
		Network: []capture.NetworkEntry{
			{Method: "GET", URL: "https://api.shop.io/api/data?api_key=" + leakedKey, Page: "https://shop.io/"},
			{Method: "GET", URL: "https://api.shop.io/api/data?api_key=" + leakedKey, Page: "https://shop.io/"},
			{Method: "GET", URL: "http://cdn.other.io/lib.js", Page: "https://shop.io/"},
		},
		Bodies: []security.Request{{NetworkBody: capture.NetworkBody{Method: "GET", URL: "https://api.shop.io/api/users/7",
			Status: 200, ResponseBody: `{"email":"jo@shop.io"}`}, Auth: security.AuthAbsent}},
		Logs: []capture.LogEntry{{Level: "log", Message: "Token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX3ZhbHVl", Source: "https://shop.io/auth.js:45:3"}},
	}, security.Options{})
}

func TestFromSecurityIsValidSARIF(t *testing.T) {
	b, err := json.Marshal(FromSecurity(securityReport()))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), leakedKey) || strings.Contains(string(b), "c2lnbmF0dXJlX3ZhbHVl") {
		t.Fatalf("secret in SARIF: %s", b)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := validator(t).Validate(v); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v\n%s", err, b)
	}
}

func TestFromSecurityMapsRulesLevelsAndLocations(t *testing.T) {
	run := FromSecurity(securityReport()).Runs[0]
	if len(run.Results) != 4 || len(run.Tool.Driver.Rules) != 4 {
		t.Fatalf("results %d rules %d", len(run.Results), len(run.Tool.Driver.Rules))
	}
	got := map[string]Result{}
	for _, r := range run.Results {
		got[r.RuleID] = r
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("ruleIndex of %s points at %s", r.RuleID, run.Tool.Driver.Rules[r.RuleIndex].ID)
		}
	}
	uri := func(id string) string { return got[id].Locations[0].PhysicalLocation.ArtifactLocation.URI }
	if r := got["secret_in_url"]; r.Level != "error" || uri("secret_in_url") != "https://api.shop.io/api/data?api_key=Zk29xQ...1rT" ||
		!strings.Contains(r.Message.Text, "field api_key") || !strings.Contains(r.Message.Text, "seen 2 times") {
		t.Errorf("secret_in_url: %+v", r)
	}
	if r := got["pii_without_auth"]; r.Level != "warning" || uri("pii_without_auth") != "https://api.shop.io/api/users/:id" {
		t.Errorf("pii_without_auth: %+v", r)
	}
	if reg := got["jwt_in_log"].Locations[0].PhysicalLocation.Region; uri("jwt_in_log") != "https://shop.io/auth.js" || reg == nil || reg.StartLine != 45 || reg.StartColumn != 3 {
		t.Errorf("console finding located at %q %+v", uri("jwt_in_log"), reg)
	}
	if r := got["mixed_content_script"]; uri("mixed_content_script") != "http://cdn.other.io/lib.js" || r.Locations[0].LogicalLocations[0].FullyQualifiedName != "https://shop.io/" {
		t.Errorf("mixed content: %+v", r)
	}
	for _, rule := range run.Tool.Driver.Rules {
		if tags, _ := rule.Properties["tags"].([]string); len(tags) < 3 || !strings.HasPrefix(tags[2], "external/cwe/cwe-") {
			t.Errorf("rule %s tags %v", rule.ID, rule.Properties["tags"])
		}
	}
}
