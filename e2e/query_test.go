//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// open navigates the rig's tab and waits until the extension tracks it.
func (r *rig) open(t testing.TB, path string) string {
	t.Helper()
	url := r.site + path
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the tracked page "+path, func() bool {
		return observe(t, r.ai, map[string]any{"what": "page"})["url"] == url
	})
	return url
}

func matches(res map[string]any) []map[string]any {
	raw, _ := res["matches"].([]any)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i] = m.(map[string]any)
	}
	return out
}

func TestDOMQueries(t *testing.T) {
	r := newRig(t, "dom-agent", map[string]any{})
	url := r.open(t, "/dom.html")
	tab := observe(t, r.ai, map[string]any{"what": "page"})["tab"]

	list := analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#list > li"})
	if list["matchCount"] != float64(60) || list["returnedCount"] != float64(50) || len(matches(list)) != 50 ||
		list["url"] != url || list["title"] != "DOM fixture" || list["tab"] != tab {
		t.Fatalf("list: %v", clipJSON(list, 400))
	}
	first := matches(list)[0]
	if first["tag"] != "li" || first["text"] != "Item 0 open" || first["attributes"].(map[string]any)["data-id"] != "0" ||
		first["visible"] != true || first["boundingBox"].(map[string]any)["height"].(float64) <= 0 || first["selector"] == "" {
		t.Errorf("first item: %v", first)
	}
	if first["styles"] != nil || first["children"] != nil {
		t.Errorf("styles or children without asking: %v", first)
	}
	// Each match's selector finds it: its place among its parent's children of its tag, none when it
	// is the only one of them.
	for i, m := range matches(list) {
		if want := fmt.Sprintf("#list > li:nth-of-type(%d)", i+1); m["selector"] != want {
			t.Errorf("match %d: selector %v, want %s", i, m["selector"], want)
		}
	}
	if s := matches(analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#list > li:nth-of-type(3) > span"}))[0]["selector"]; s != "#list > li:nth-of-type(3) > span" {
		t.Errorf("an only span: selector %v", s)
	}
	// Among siblings of several tags (the body's): counted by tag, none for the only img.
	var among []string
	for _, m := range matches(analyze(t, r.ai, map[string]any{"target": "dom", "selector": "body > h2, body > img"})) {
		among = append(among, fmt.Sprint(m["selector"]))
	}
	if got := strings.Join(among, ", "); got != "body > h2:nth-of-type(1), body > h2:nth-of-type(2), body > img" {
		t.Errorf("siblings of several tags: selectors %s", got)
	}
	// A form's field named "id" shadows form.id: the form's own id still anchors the path.
	if s := matches(analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#account button"}))[0]["selector"]; s != "#account > button" {
		t.Errorf("a button of a form with a field named id: selector %v", s)
	}

	long := matches(analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#long"}))[0]
	if len([]rune(long["text"].(string))) != 500 || long["textTruncated"] != true {
		t.Errorf("long text: %d chars truncated=%v", len(long["text"].(string)), long["textTruncated"])
	}

	box := matches(analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#box", "include_styles": true}))[0]
	st := box["styles"].(map[string]any)
	if st["display"] != "flex" || st["width"] != "200px" || st["color"] != "rgb(255, 0, 0)" {
		t.Errorf("styles: %v", st)
	}
	layout := []string{"display", "position", "width", "height", "margin", "padding", "flex", "grid", "visibility",
		"opacity", "overflow", "z-index", "color", "background-color", "font-size"}
	for k := range st {
		if !slices.Contains(layout, k) {
			t.Errorf("style %q is outside the layout subset", k)
		}
	}
	only := matches(analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#box", "properties": []string{"color"}, "include_styles": true}))[0]
	if s := only["styles"].(map[string]any); len(s) != 1 || s["color"] != "rgb(255, 0, 0)" {
		t.Errorf("properties [color]: %v", s)
	}

	deep := matches(analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#deep", "include_children": true, "max_depth": 2}))[0]
	if got := depth(deep); got != 2 {
		t.Errorf("children depth %d, want 2: %v", got, mustJSON(deep))
	}
	deepest := matches(analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#deep", "include_children": true, "max_depth": 5}))[0]
	if got := depth(deepest); got != 5 {
		t.Errorf("children depth %d, want 5", got)
	}
	if hidden := matches(analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#hidden"}))[0]; hidden["visible"] != false {
		t.Errorf("hidden: %v", hidden)
	}
	if none := analyze(t, r.ai, map[string]any{"target": "dom", "selector": ".nothing-here"}); none["matchCount"] != float64(0) {
		t.Errorf("no match: %v", none)
	}

	out, isErr, err := callTool(r.ai, "analyze", map[string]any{"target": "dom", "selector": "li[["})
	if err != nil || !isErr || out["error"] != "invalid_param" || !strings.Contains(out["message"].(string), "not a valid selector") {
		t.Errorf("invalid selector: %v %v", err, out)
	}
	out, isErr, _ = callTool(r.ai, "analyze", map[string]any{"target": "dom", "selector": "li", "max_depth": 9})
	if !isErr || out["error"] != "invalid_param" {
		t.Errorf("max_depth 9: %v", out)
	}
}

// depth is how many levels of children an element carries.
func depth(e map[string]any) int {
	best := 0
	kids, _ := e["children"].([]any)
	for _, k := range kids {
		best = max(best, 1+depth(k.(map[string]any)))
	}
	return best
}

func TestPageInfo(t *testing.T) {
	r := newRig(t, "info-agent", map[string]any{})
	url := r.open(t, "/dom.html")
	info := analyze(t, r.ai, map[string]any{"target": "page_info"})
	if info["url"] != url || info["title"] != "DOM fixture" || info["images"] != float64(1) || info["links"] != float64(60) {
		t.Fatalf("info: %v", info)
	}
	if vp := info["viewport"].(map[string]any); vp["width"].(float64) <= 0 || info["documentHeight"].(float64) <= vp["height"].(float64) {
		t.Errorf("viewport/documentHeight: %v %v", vp, info["documentHeight"])
	}
	forms := info["forms"].([]any)
	form := forms[0].(map[string]any)
	if form["id"] != "login" || mustJSON(form["fields"]) != `["email","password"]` || !strings.HasSuffix(form["action"].(string), "/api/login") {
		t.Errorf("form: %v", form)
	}
	if strings.Contains(mustJSON(info), "hunter2") || strings.Contains(mustJSON(info), "ada@example.com") {
		t.Errorf("field values leaked: %v", info)
	}
	heads := mustJSON(info["headings"])
	if heads != `[{"level":1,"text":"DOM fixture"},{"level":2,"text":"Section A"},{"level":2,"text":"Section B"}]` {
		t.Errorf("headings: %s", heads)
	}
	// A form with a field named "id" (which shadows form.id) is read by its attributes.
	if len(forms) != 2 || mustJSON(forms[1]) != `{"fields":["id"],"id":"account"}` {
		t.Errorf("forms: %s", mustJSON(forms))
	}
	// 60 links, two buttons and two inputs (not the hidden one).
	if info["interactiveElements"] != float64(64) {
		t.Errorf("interactive: %v", info["interactiveElements"])
	}
}

func TestAccessibilityAuditAndSARIF(t *testing.T) {
	r := newRig(t, "a11y-agent", map[string]any{})
	r.open(t, "/a11y.html")
	audit := analyze(t, r.ai, map[string]any{"target": "accessibility"})
	byID := wantPlantedViolations(t, audit)
	if audit["cached"] != nil || audit["summary"].(map[string]any)["passes"].(float64) == 0 {
		t.Errorf("audit: %v", audit["summary"])
	}
	img := byID["image-alt"]
	node := img["nodes"].([]any)[0].(map[string]any)
	if img["impact"] != "critical" || !strings.HasPrefix(img["helpUrl"].(string), "https://") || node["selector"] == "" || !strings.Contains(node["html"].(string), `class="hero"`) {
		t.Errorf("image-alt: %v", img)
	}

	again := analyze(t, r.ai, map[string]any{"target": "accessibility"})
	if again["cached"] != true {
		t.Errorf("second call within 30 s not cached: %v", again["cached"])
	}
	fresh := analyze(t, r.ai, map[string]any{"target": "accessibility", "force_refresh": true})
	if fresh["cached"] != nil || len(fresh["violations"].([]any)) != 3 {
		t.Errorf("force_refresh: %v", fresh["cached"])
	}
	scoped := analyze(t, r.ai, map[string]any{"target": "accessibility", "scope": "form"})
	if s := mustJSON(scoped["violations"]); !strings.Contains(s, `"label"`) || strings.Contains(s, "image-alt") {
		t.Errorf("scope form: %s", s)
	}

	sar, isErr, err := callTool(r.ai, "generate", map[string]any{"format": "sarif"})
	if err != nil || isErr {
		t.Fatalf("generate sarif: %v %v", err, sar)
	}
	validateSARIF(t, sar)
}

// validateSARIF checks a document against the official SARIF 2.1.0 schema.
func validateSARIF(t *testing.T, doc map[string]any) {
	t.Helper()
	f, err := os.Open("../node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json")
	if err != nil {
		t.Fatalf("SARIF schema missing (run npm ci): %v", err)
	}
	defer f.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(doc)
	v, _ := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err := sch.Validate(v); err != nil {
		t.Fatalf("invalid SARIF: %v", err)
	}
}

// TestQueryDuringNavigation sends a query the moment a navigation starts:
// the answer must come from the new page, not the old one, and not hang.
func TestQueryDuringNavigation(t *testing.T) {
	r := newRig(t, "nav-agent", map[string]any{})
	r.open(t, "/other.html")
	for range 3 {
		if err := chromedp.Do(r.b.ctx, chromedp.Evaluate[chromedp.Void](`location.href = "/dom.html?n=" + Date.now()`)); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		res := analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#list > li"})
		if res["matchCount"] != float64(60) || !strings.Contains(res["url"].(string), "/dom.html") {
			t.Fatalf("answer from the old page: %v", clipJSON(res, 200))
		}
		t.Logf("query sent at navigation start answered in %v", time.Since(t0).Round(time.Millisecond))
		r.open(t, "/other.html")
	}
}

// TestQueryGivesMissingParts: the content script the worker runs at a
// page's load never came (the injection failed, as it can for a document
// going away or not yet shown); a query runs it itself rather than wait out
// its deadline.
func TestQueryGivesMissingParts(t *testing.T) {
	r := newRig(t, "parts-agent", map[string]any{})
	r.b.interceptInjections(t, `(o, run) => {
		if (!globalThis.__partsRefused && o.files && o.files.includes('content/queries.js')) {
			globalThis.__partsRefused = true;
			return Promise.reject(new Error('refused by the test'));
		}
		return run(o);
	}`)
	r.open(t, "/dom.html")
	waitFor(t, 10*time.Second, "the refused injection", func() bool {
		ok, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](`globalThis.__partsRefused === true`))
		return err == nil && ok
	})
	if res := analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#list > li"}); res["matchCount"] != float64(60) {
		t.Fatalf("the query after a refused injection: %v", clipJSON(res, 200))
	}
}

// TestQueryGivesPartsThatCameLate: at the page's load only content.js and
// the files before it ran (the injection stopped short of its parts), so
// the worker's handing-over of the settings that follows found no parts to
// say 'ready'. A query then reaches a content script that cannot answer it:
// the worker runs the files again, and the handing-over after them must now
// say 'ready', the only thing that ends the worker's wait short of the
// query's deadline.
func TestQueryGivesPartsThatCameLate(t *testing.T) {
	r := newRig(t, "late-parts-agent", map[string]any{})
	r.b.interceptInjections(t, `(o, run) => {
		const at = o.files ? o.files.indexOf('content/queries.js') : -1;
		if (!globalThis.__partsCut && at > 0) {
			globalThis.__partsCut = true;
			return run({ ...o, files: o.files.slice(0, at) });
		}
		return run(o);
	}`)
	r.open(t, "/dom.html")
	waitFor(t, 10*time.Second, "content.js without its parts", func() bool {
		id := contentWorld(t, r.b.ctx)
		return inWorld(r.b.ctx, id, `!!(globalThis.__gasolineContent && globalThis.__gasolineContent.settings() && !globalThis.__gasolineContent.parts.has('queries'))`)
	})
	if res := analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#list > li"}); res["matchCount"] != float64(60) {
		t.Fatalf("the query to a page whose parts came late: %v", clipJSON(res, 200))
	}
}

// TestTabTargeting queries a tab that is not the tracked one by tab_id.
func TestTabTargeting(t *testing.T) {
	r := newRig(t, "tab-agent", map[string]any{})
	r.open(t, "/dom.html")
	first := observe(t, r.ai, map[string]any{"what": "page"})["tab"]
	second, cancel := chromedp.NewContext(r.b.ctx)
	defer cancel()
	if err := chromedp.Do(second, chromedp.Navigate(r.site+"/other.html")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the new tab to be tracked", func() bool {
		return observe(t, r.ai, map[string]any{"what": "page"})["url"] == r.site+"/other.html"
	})
	if who := analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#who"}); who["matchCount"] != float64(1) {
		t.Fatalf("tracked tab: %v", who)
	}
	res := analyze(t, r.ai, map[string]any{"target": "dom", "selector": "#list > li", "tab_id": first})
	if res["matchCount"] != float64(60) || res["tab"] != first {
		t.Fatalf("tab_id %v: %v", first, clipJSON(res, 200))
	}
	out, isErr, _ := callTool(r.ai, "analyze", map[string]any{"target": "dom", "selector": "h1", "tab_id": 999999})
	if !isErr || out["error"] != "not_found" {
		t.Fatalf("unknown tab: %v", out)
	}
}

// TestHungPageTimesOut: a page whose main thread never yields cannot
// answer; the AI gets timeout at the deadline and the server holds nothing.
// The answer names the 10 s deadline, and cannot come before it (the
// server's timer is set after t0); how long after depends on the machine.
func TestHungPageTimesOut(t *testing.T) {
	r := newRig(t, "hang-agent", map[string]any{})
	r.open(t, "/other.html")
	if err := chromedp.Do(r.b.ctx, chromedp.Evaluate[chromedp.Void](`setTimeout(() => { for (;;) {} }, 0)`)); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	out, isErr, err := callTool(r.ai, "analyze", map[string]any{"target": "dom", "selector": "h1"})
	if err != nil || !isErr || out["error"] != "timeout" || !strings.Contains(out["message"].(string), "within 10s") {
		t.Fatalf("hung page: %v %v", err, out)
	}
	if took := time.Since(t0); took < 10*time.Second {
		t.Errorf("timeout after %v, before the 10 s deadline", took)
	}
	if h := observe(t, r.ai, map[string]any{"what": "health"}); h["pending_queries"] != nil {
		t.Errorf("server still holds queries: %v", h["pending_queries"])
	}
}

// wantPlantedViolations checks an accessibility audit of a11y.html found
// exactly the three violations the page plants, in any browser, and returns
// them by id.
func wantPlantedViolations(t testing.TB, audit map[string]any) map[string]map[string]any {
	t.Helper()
	var ids []string
	byID := map[string]map[string]any{}
	for _, v := range audit["violations"].([]any) {
		id := v.(map[string]any)["id"].(string)
		ids = append(ids, id)
		byID[id] = v.(map[string]any)
	}
	slices.Sort(ids)
	if strings.Join(ids, ",") != "color-contrast,image-alt,label" {
		t.Fatalf("violations %v, want exactly the planted three: %v", ids, mustJSON(audit))
	}
	return byID
}
