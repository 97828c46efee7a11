package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// analyze styles: the extension's report (here a fake worker's, as Firefox
// reports it: no lines) is ordered by the cascade, each rule found in its
// sheet's text and mapped through the sheet's source map; bad input never
// reaches the page.
func TestAnalyzeStyles(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/site.css":
			w.Write([]byte(".btn { color: blue; }\n\n#buy { color: #c00; }\n"))
		case "/theme.css":
			w.Write([]byte(".card .title {\n  font-size: 20px;\n}\n/*# sourceMappingURL=theme.css.map */\n"))
		case "/theme.css.map":
			w.Write([]byte(`{"version":3,"sources":["scss/theme.scss"],"names":[],"mappings":"AAGE;EACE,WAAA"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer app.Close()
	s, base := startServer(t)
	var asked []map[string]any
	connectWorker(t, base, func(q map[string]any) map[string]any {
		asked = append(asked, q)
		return map[string]any{"tab": 4, "result": map[string]any{
			"url": app.URL + "/", "via": "sheets", "element": "button#buy.btn", "ancestors": []string{"div.card"},
			"sheets":     []map[string]any{{"url": app.URL + "/site.css"}, {"url": app.URL + "/theme.css"}},
			"unreadable": []string{"http://other.test/x.css?token=abc123secret"},
			"computed":   map[string]string{"color": "rgb(204, 0, 0)"},
			"decls": []map[string]any{
				{"node": 0, "p": "color", "v": "blue", "o": "author", "sel": ".btn", "st": ".btn", "sh": 0, "n": 1},
				{"node": 0, "p": "color", "v": "#c00", "o": "author", "sel": "#buy", "st": "#buy", "sh": 0, "n": 2},
				{"node": 1, "p": "font-size", "v": "20px", "o": "author", "sel": ".card .title", "st": ".card .title", "sh": 1, "n": 3},
			},
		}}
	})
	waitReachable(t, s)
	c := mcpClient(t, s)
	out, isErr := callTool(t, c, "analyze", map[string]any{"target": "styles", "selector": "#buy", "properties": []any{"color", "font-size"}})
	if isErr {
		t.Fatal(out)
	}
	props := out["properties"].(map[string]any)
	sheets := out["sheets"].([]any)
	col := props["color"].(map[string]any)
	win := col["winner"].(map[string]any)
	if win["selector"] != "#buy" || sheets[int(win["sheet"].(float64))] != "/site.css" || win["line"] != float64(3) {
		t.Errorf("color's winner: %v %v", win, sheets)
	}
	if b := col["beat"].([]any)[0].(map[string]any); b["selector"] != ".btn" || b["why"] != "specificity" || b["line"] != float64(1) {
		t.Errorf("color's beaten: %v", b)
	}
	inh := props["font-size"].(map[string]any)["inherited"].(map[string]any)
	if sheets[int(inh["sheet"].(float64))] != "/scss/theme.scss" || inh["line"] != float64(5) || out["ancestors"].([]any)[0] != "div.card" {
		t.Errorf("font-size, through the map: %v %v", inh, sheets)
	}
	if u := out["unreadable"].([]any)[0].(string); strings.Contains(u, "abc123secret") {
		t.Errorf("a secret in an unreadable sheet's URL: %s", u)
	}
	if out["tab"] != float64(4) || out["url"] != app.URL+"/" || out["via"] != "sheets" {
		t.Errorf("answer: %v", out)
	}
	for _, bad := range []map[string]any{
		{"target": "styles"},
		{"target": "styles", "selector": "#buy", "properties": []any{"Color!"}},
		{"target": "styles", "selector": "#buy", "properties": []any{"color; x"}},
	} {
		out, isErr := callTool(t, c, "analyze", bad)
		if !isErr || out["error"] != "invalid_param" {
			t.Errorf("%v: %v", bad, out)
		}
	}
	if len(asked) != 1 {
		t.Errorf("the page was asked %d times, want once (bad input stops at the server)", len(asked))
	}
	if p := asked[0]["params"].(map[string]any); p["selector"] != "#buy" || len(p["properties"].([]any)) != 2 || asked[0]["kind"] != "styles" {
		t.Errorf("the query: %v", asked[0])
	}
}
