package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// schemaCase is one argument value and whether the schema allows it.
type schemaCase struct {
	value   any
	allowed bool
}

// casesFor derives, from a property's JSON schema alone, values it forbids
// and values at its edges that it allows.
func casesFor(prop map[string]any) []schemaCase {
	var out []schemaCase
	switch prop["type"] {
	case "string":
		out = append(out, schemaCase{5, false}, schemaCase{true, false})
		if enum, ok := prop["enum"].([]any); ok {
			out = append(out, schemaCase{"no-such-value", false}, schemaCase{enum[0], true}, schemaCase{enum[len(enum)-1], true})
		} else {
			out = append(out, schemaCase{"a", true})
		}
		if n, ok := prop["maxLength"].(float64); ok {
			out = append(out, schemaCase{strings.Repeat("é", int(n)), true}, schemaCase{strings.Repeat("é", int(n)+1), false})
		} else if prop["enum"] == nil {
			out = append(out, schemaCase{strings.Repeat("é", 1000), true})
		}
	case "integer":
		out = append(out, schemaCase{"1", false}, schemaCase{1.5, false})
		// Where the schema sets no bound, the parser may not set one either.
		if lo, ok := prop["minimum"].(float64); ok {
			out = append(out, schemaCase{lo, true}, schemaCase{lo - 1, false})
		} else {
			out = append(out, schemaCase{-1 << 40, true})
		}
		if hi, ok := prop["maximum"].(float64); ok {
			out = append(out, schemaCase{hi, true}, schemaCase{hi + 1, false})
		} else {
			out = append(out, schemaCase{1 << 40, true})
		}
	case "boolean":
		out = append(out, schemaCase{"yes", false}, schemaCase{1, false}, schemaCase{false, true})
	case "array":
		out = append(out, schemaCase{"a", false}, schemaCase{[]any{1}, false})
		items, _ := prop["items"].(map[string]any)
		if enum, ok := items["enum"].([]any); ok {
			out = append(out, schemaCase{[]any{"no-such-value"}, false}, schemaCase{[]any{enum[0], enum[len(enum)-1]}, true})
		} else {
			out = append(out, schemaCase{[]any{"a"}, true})
		}
	}
	return out
}

// Every parser rejects what its schema in tools/list forbids, with an
// invalid_param naming the parameter, and accepts the schema's edge values:
// schema and parser are one declaration. The cases come from the listed
// schema, so a bound added to one side only fails here.
func TestEveryParserEnforcesItsSchema(t *testing.T) {
	s := New(Config{Version: "test"})
	c := mcpClient(t, s)
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tool := range res.Tools {
		if len(tool.InputSchema.Required) != 1 {
			t.Fatalf("%s: want exactly one required selector, got %v", tool.Name, tool.InputSchema.Required)
		}
		selector := tool.InputSchema.Required[0]
		modes := tool.InputSchema.Properties[selector].(map[string]any)["enum"].([]any)
		for name, p := range tool.InputSchema.Properties {
			prop := p.(map[string]any)
			for _, tc := range casesFor(prop) {
				arguments := map[string]any{selector: modes[0], name: tc.value}
				out, isErr := callTool(t, c, tool.Name, arguments)
				msg, _ := out["message"].(string)
				rejected := isErr && out["error"] == "invalid_param" && strings.HasPrefix(msg, name)
				if rejected == tc.allowed {
					t.Errorf("%s %s=%v: schema allows it: %v; got isError=%v %v", tool.Name, name, tc.value, tc.allowed, isErr, out)
				}
				checked++
			}
		}
		out, isErr := callTool(t, c, tool.Name, map[string]any{})
		if !isErr || out["error"] != "invalid_param" || out["message"] != selector+" is required" {
			t.Errorf("%s without %s: %v", tool.Name, selector, out)
		}
		out, _ = callTool(t, c, tool.Name, map[string]any{selector: "no-such-mode"})
		if msg, _ := out["message"].(string); !strings.Contains(msg, fmt.Sprint(modes[0])) {
			t.Errorf("%s: a bad %s should name the valid values: %v", tool.Name, selector, out)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d cases derived from tools/list", checked)
	}
	t.Logf("%d cases from %d tools", checked, len(res.Tools))
}
