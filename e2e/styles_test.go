//go:build e2e

package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The styles fixture (testdata/fixtures/styles): a button whose color is
// set by #buy in site.css line 3 over .btn, another's by its style
// attribute, a title colored from theme.scss line 5 through theme.css's
// source map (written by hand: "AAGE;EACE" maps theme.css lines 1–2 to
// theme.scss lines 4–5), and a sheet from another origin (the same files
// on a second port).
type stylesApp struct {
	page, remote string
}

func serveStyles(t *testing.T) stylesApp {
	t.Helper()
	app, other := serveApp(t, "../testdata/fixtures/styles"), serveApp(t, "../testdata/fixtures/styles")
	return stylesApp{page: app.URL + "/?remote=" + other.URL + "/remote.css", remote: other.URL + "/remote.css"}
}

// stylesOf is analyze styles' answer for one property of one element.
func stylesOf(t *testing.T, c mcpClient, selector, prop string) (map[string]any, map[string]any) {
	t.Helper()
	out := analyze(t, c, map[string]any{"target": "styles", "selector": selector, "properties": []any{prop}})
	p, _ := out["properties"].(map[string]any)[prop].(map[string]any)
	if p == nil {
		t.Fatalf("%s %s: no property in %s", selector, prop, clipJSON(out, 600))
	}
	return out, p
}

// at is where a declaration is: its sheet's name and its line.
func at(out, decl map[string]any) string {
	sheets, _ := out["sheets"].([]any)
	i, ok := decl["sheet"].(float64)
	if !ok || int(i) >= len(sheets) {
		return "?"
	}
	line, _ := decl["line"].(float64) // absent: the rule was not found in the sheet
	return sheets[int(i)].(string) + ":" + strconv.Itoa(int(line))
}

// checkCascade is what both browsers must show, by either way of reading.
func checkCascade(t *testing.T, c mcpClient, via string) {
	t.Helper()
	out, color := stylesOf(t, c, "#buy", "color")
	win, _ := color["winner"].(map[string]any)
	beat, _ := color["beat"].([]any)
	if out["via"] != via || out["element"] != "button#buy.btn" || color["computed"] != "rgb(204, 0, 0)" || win == nil ||
		win["selector"] != "#buy" || at(out, win) != "/site.css:3" || mustJSON(win["specificity"]) != "[1,0,0]" || len(beat) == 0 {
		t.Fatalf("#buy color (%s): %s", via, clipJSON(out, 900))
	}
	if b := beat[0].(map[string]any); b["selector"] != ".btn" || b["why"] != "specificity" || at(out, b) != "/site.css:2" || b["value"] != "blue" {
		t.Errorf("#buy color's beaten (%s): %s", via, clipJSON(beat, 600))
	}

	out, color = stylesOf(t, c, "#gift", "color")
	win, _ = color["winner"].(map[string]any)
	beat, _ = color["beat"].([]any)
	if win == nil || win["origin"] != "inline" || win["value"] != "rgb(128, 0, 128)" || len(beat) == 0 ||
		beat[0].(map[string]any)["selector"] != ".btn" || beat[0].(map[string]any)["why"] != "inline" {
		t.Errorf("#gift color, its style attribute (%s): %s", via, clipJSON(out, 900))
	}

	out, color = stylesOf(t, c, ".title", "color")
	if win, _ = color["winner"].(map[string]any); win == nil || at(out, win) != "/theme.scss:5" || win["selector"] != ".card .title" {
		t.Errorf(".title color, through theme.css's map (%s): %s", via, clipJSON(out, 900))
	}

	out, font := stylesOf(t, c, "#sale", "font-family")
	inh, _ := font["inherited"].(map[string]any)
	anc, _ := out["ancestors"].([]any)
	if inh == nil || font["winner"] != nil || len(anc) == 0 || anc[int(inh["from"].(float64))] != "body" || inh["selector"] != "body" ||
		at(out, inh) != "/site.css:1" {
		t.Errorf("#sale font-family, from body (%s): %s", via, clipJSON(out, 900))
	}

	// !important in layers: the earlier layer wins; then two rules alike but for their order.
	out, border := stylesOf(t, c, "#sale", "border-top-style")
	win, _ = border["winner"].(map[string]any)
	var whys []string
	for _, b := range border["beat"].([]any) {
		b := b.(map[string]any)
		whys = append(whys, fmt.Sprint(b["selector"], " ", at(out, b), " ", b["why"]))
	}
	if win == nil || win["selector"] != ".tag" || win["layer"] != "base" || win["important"] != true || win["value"] != "dotted" || at(out, win) != "/layers.css:7" ||
		border["computed"] != "dotted" || strings.Join(whys, "; ") != "#sale /layers.css:4 layer; #sale /layers.css:12 !important; .tag /layers.css:10 !important" {
		t.Errorf("#sale border-top-style (%s): %s", via, clipJSON(out, 1200))
	}
	out, pad := stylesOf(t, c, "#sale", "padding-left")
	win, _ = pad["winner"].(map[string]any)
	if b, _ := pad["beat"].([]any); win == nil || at(out, win) != "/layers.css:14" || len(b) != 1 || b[0].(map[string]any)["why"] != "order" ||
		at(out, b[0].(map[string]any)) != "/layers.css:13" {
		t.Errorf("#sale padding-left (%s): %s", via, clipJSON(out, 900))
	}
	// A form's field named "id" shadows form.id: the form is still named by its id.
	if out, _ := stylesOf(t, c, "#order", "font-family"); out["element"] != "form#order" {
		t.Errorf("a form with a field named id (%s): %s", via, clipJSON(out, 900))
	}

	for _, bad := range []struct {
		args map[string]any
		code string
	}{
		{map[string]any{"target": "styles", "selector": "#nope"}, "not_found"},
		{map[string]any{"target": "styles", "selector": "#buy", "properties": []any{"colr"}}, "invalid_param"},
	} {
		out, isErr, err := callTool(c, "analyze", bad.args)
		if err != nil || !isErr || out["error"] != bad.code {
			t.Errorf("%v (%s): %v %v %v", bad.args, via, out, isErr, err)
		}
	}
}

// TestStylesChromium: through CDP's CSS domain, then, with another debugger
// on the tab, by the content script's walk of the sheets.
func TestStylesChromium(t *testing.T) {
	r := newRig(t, "styles-agent", map[string]any{})
	app := serveStyles(t)
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(app.page)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the tracked styles page", func() bool {
		return observe(t, r.ai, map[string]any{"what": "page"})["url"] == app.page
	})
	checkCascade(t, r.ai, "cdp")

	// A button's font is the user agent's system font, whatever the card's: CDP tells the rule, not
	// the value (the sheets' walk sees no user-agent rule).
	out, size := stylesOf(t, r.ai, "#buy", "font-size")
	win, _ := size["winner"].(map[string]any)
	if v, _ := win["value"].(string); win == nil || win["origin"] != "user-agent" || win["selector"] != "button" ||
		v == "" || v != size["computed"] || size["inherited"] != nil {
		t.Errorf("#buy font-size, the user agent's: %s", clipJSON(out, 900))
	}

	// CDP reads a sheet of another origin that the page's scripts may not.
	out, deco := stylesOf(t, r.ai, ".remote-only", "text-decoration-line")
	if win, _ := deco["winner"].(map[string]any); win == nil || at(out, win) != app.remote+":1" || out["unreadable"] != nil {
		t.Errorf("the other origin's rule through CDP: %s", clipJSON(out, 900))
	}
	// Without properties: those the element's own rules write, not the user agent's.
	all := analyze(t, r.ai, map[string]any{"target": "styles", "selector": "#buy"})
	props := all["properties"].(map[string]any)
	if props["color"] == nil || props["padding"] == nil || props["display"] != nil || len(props) != 2 {
		t.Errorf("the default properties: %s", clipJSON(all, 900))
	}

	// Another debugger holds the tab (as DevTools would): the sheets, walked.
	tab := observe(t, r.ai, map[string]any{"what": "page"})["tab"].(float64)
	hold := `chrome.debugger.attach({tabId: ` + strconv.Itoa(int(tab)) + `}, '1.3').then(() => true)`
	if _, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](hold, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	checkCascade(t, r.ai, "sheets")
	out = analyze(t, r.ai, map[string]any{"target": "styles", "selector": ".remote-only", "properties": []any{"text-decoration-line"}})
	if u, _ := out["unreadable"].([]any); len(u) != 1 || u[0] != app.remote {
		t.Errorf("the other origin's sheet, walked: %s", clipJSON(out, 900))
	}
}

// TestStylesFirefox: Firefox ESR walks the document's sheets.
func TestStylesFirefox(t *testing.T) {
	r := newFoxRig(t, "ff-styles-agent", map[string]any{})
	app := serveStyles(t)
	r.f.navigate(t, r.f.tab, app.page)
	waitFor(t, 10*time.Second, "the tracked styles page", func() bool {
		return observe(t, r.ai, map[string]any{"what": "page"})["url"] == app.page
	})
	checkCascade(t, r.ai, "sheets")
	out := analyze(t, r.ai, map[string]any{"target": "styles", "selector": ".remote-only", "properties": []any{"text-decoration-line"}})
	if u, _ := out["unreadable"].([]any); len(u) != 1 || !strings.HasSuffix(u[0].(string), "/remote.css") {
		t.Errorf("the other origin's sheet: %s", clipJSON(out, 900))
	}
}
