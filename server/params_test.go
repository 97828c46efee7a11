package server

import (
	"context"
	"fmt"
	"slices"
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
		sel := tool.InputSchema.Properties[selector].(map[string]any)
		modes := sel["enum"].([]any)
		for name, p := range tool.InputSchema.Properties {
			prop := p.(map[string]any)
			mode := any(modeReading(sel["description"].(string), name))
			if name == selector || (mode == "" && s.toolNamed(tool.Name).commonReads()[name]) {
				mode = modes[0]
			} else if mode == "" {
				t.Errorf("%s: no mode says it reads %s", tool.Name, name)
				continue
			}
			for _, tc := range casesFor(prop) {
				arguments := map[string]any{selector: mode, name: tc.value}
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

// modeReading is the first mode a selector's description says reads
// param: "dom(selector tab_id): matching elements; page_info(tab_id): …".
func modeReading(desc, param string) string {
	for _, part := range strings.Split(desc, "; ") {
		names, rest, ok := strings.Cut(part, "(")
		if !ok {
			continue
		}
		reads, _, _ := strings.Cut(rest, ")")
		if slices.Contains(strings.Fields(reads), param) {
			return strings.Split(names, ",")[0]
		}
	}
	return ""
}

// A parameter the selected mode does not read is refused, naming it and
// what the mode does read; one no mode reads is refused too. Ignored, it
// would answer a question the AI did not ask as if it had.
func TestAParameterTheModeDoesNotReadIsRefused(t *testing.T) {
	c := mcpClient(t, New(Config{Version: "test"}))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"observe", map[string]any{"what": "errors", "level": "error"},
			`level is not read by observe what "errors", which reads limit, after, url_filter, tab_id`},
		{"observe", map[string]any{"what": "page", "limit": 5},
			`limit is not read by observe what "page", which reads no other parameter`},
		{"analyze", map[string]any{"target": "page_info", "selector": "h1"},
			`selector is not read by analyze target "page_info", which reads tab_id`},
		{"observe", map[string]any{"what": "logs", "levels": "warn"}, "levels is not a parameter of observe: did you mean level?"},
		{"observe", map[string]any{"what": "errors", "tabId": 3}, "tabId is not a parameter of observe: did you mean tab_id?"},
		{"observe", map[string]any{"what": "page", "tabId": 3}, `tabId is not a parameter of observe; what "page" reads no other parameter`},
		{"observe", map[string]any{"what": "logs", "url": "x"}, "url is not a parameter of observe: did you mean url_filter?"},
		{"analyze", map[string]any{"target": "dom", "selector": "h1", "depth": 2}, "depth is not a parameter of analyze: did you mean max_depth?"},
		{"analyze", map[string]any{"target": "dom", "selector": "h1", "css": true},
			`css is not a parameter of analyze; target "dom" reads selector, include_styles, properties, include_children, max_depth, tab_id`},
		{"observe", map[string]any{"what": "page", strings.Repeat("x", 100_000): 1},
			strings.Repeat("x", maxNameEcho) + ` is not a parameter of observe; what "page" reads no other parameter`},
		{"configure", map[string]any{"action": "clear", "buffer": "logs", "url_filter": "x", "settings": "reset"},
			`settings is not read by configure action "clear", which reads buffer`},
	} {
		out, isErr := callTool(t, c, tc.tool, tc.args)
		if !isErr || out["error"] != "invalid_param" || out["message"] != tc.want {
			t.Errorf("%s %v: %v", tc.tool, tc.args, out)
		}
	}
	// A value that asks nothing is a parameter left out: some clients fill
	// every optional parameter with one.
	blank := map[string]any{"what": "page", "limit": nil, "url_filter": "", "status_min": 0, "include_styles": false, "tags": []any{}}
	if out, isErr := callTool(t, c, "observe", blank); isErr {
		t.Errorf("blank values on page: %v", out)
	}
	if out, isErr := callTool(t, c, "observe", map[string]any{"what": "logs", "level": "", "direction": ""}); isErr {
		t.Errorf("a blank level on logs: %v", out)
	}
}
