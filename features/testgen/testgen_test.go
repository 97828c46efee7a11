package testgen

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func at(ms int) capture.Time { return capture.Time{Time: t0.Add(time.Duration(ms) * time.Millisecond)} }

const page = "http://localhost:3000/form"

func nav(ms int, u string) capture.Action {
	return capture.Action{TS: at(ms), Type: "navigation", URL: u, Page: u}
}

func act(ms int, typ, sel, text, value, inputType string) capture.Action {
	return capture.Action{TS: at(ms), Type: typ, Selector: sel, Text: text, Value: value, InputType: inputType, Page: page}
}

// asJS is a generated test without the TypeScript the generator writes (a
// cast and a type): JavaScript that node checks without any npm package.
func asJS(src string) string {
	return strings.NewReplacer(" as HTMLFormElement", "", "pageErrors: string[]", "pageErrors").Replace(src)
}

// The generated tests are valid JavaScript once the TypeScript the
// generator writes is removed (asJS).
func TestGoldenScriptsParse(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	files, _ := filepath.Glob("testdata/sessions/*.golden.ts")
	if len(files) == 0 {
		t.Fatal("no golden tests")
	}
	dir := t.TempDir()
	check := func(name, src string) error {
		p := filepath.Join(dir, name+".mjs")
		if err := os.WriteFile(p, []byte(asJS(src)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(node, "--check", p).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if err := check(filepath.Base(f), string(b)); err != nil {
			t.Errorf("%s does not parse: %v", f, err)
		}
	}
	if check("broken", "await page.locator(;") == nil {
		t.Fatal("the syntax check accepts a broken script")
	}
}

func TestNoActions(t *testing.T) {
	if _, err := Generate(Session{}, Options{}); !errors.Is(err, ErrNoActions) {
		t.Fatalf("err %v", err)
	}
	s := Session{Actions: []capture.Action{nav(0, "http://localhost:3000/a")}}
	if _, err := Generate(s, Options{URLFilter: "/b"}); !errors.Is(err, ErrNoActions) {
		t.Fatalf("filtered out, err %v", err)
	}
}

// The order the page saw: time, then within a millisecond the page's
// sequence; nothing moved (a click that revealed a field stays before the
// typing in it).
func TestOrderedIsThePagesOrder(t *testing.T) {
	seq := func(a capture.Action, doc string, n int64) capture.Action {
		a.Order = capture.Place{Doc: doc, Seq: n}
		return a
	}
	in := []capture.Action{ // newest first, as the store answers
		act(4020, "submit", "#f", "", "", ""),
		// Stored out of the page's order (a batch sent again): the sequence tells.
		seq(act(4000, "input", "#msg", "", "hi", "text"), "d1", 5),
		seq(act(4000, "click", "#f > button", "Send", "", ""), "d1", 6),
		act(3000, "input", "#b", "", "2", "text"),
		act(2500, "click", "#new", "New", "", ""),
		act(1000, "click", "#a", "", "", ""),
		act(900, "input", "#z", "", "x", "text"),
		act(950, "change", "#z", "", "xy", "text"),
		nav(0, page), nav(10, page),
	}
	got, _ := ordered(in, Options{})
	var order []string
	for _, a := range got {
		order = append(order, a.Type+":"+a.Selector+a.Value)
	}
	want := "navigation: input:#zxy click:#a click:#new input:#b2 input:#msghi click:#f > button"
	if strings.Join(order, " ") != want {
		t.Fatalf("order\n got %s\nwant %s", strings.Join(order, " "), want)
	}
	// Without a sequence (a restored history), one millisecond keeps the stored order.
	got, _ = ordered([]capture.Action{act(10, "click", "#send", "Send", "", ""), act(10, "input", "#msg", "", "hi", "text"), nav(0, page)}, Options{})
	if len(got) != 3 || got[1].Type != "input" || got[2].Type != "click" {
		t.Fatalf("same millisecond, no sequence: %v", got)
	}
}

// The AI's own actions are replayed only when asked.
func TestOrderedLeavesTheAIsActions(t *testing.T) {
	ai := act(20, "click", "#buy", "Buy", "", "")
	ai.Source = "ai"
	in := []capture.Action{nav(0, page), act(10, "input", "#q", "", "x", "text"), ai}
	got, left := ordered(in, Options{})
	if len(got) != 2 || left != 1 {
		t.Fatalf("human only: %d actions, %d left", len(got), left)
	}
	if got, left = ordered(in, Options{IncludeAI: true}); len(got) != 3 || left != 0 {
		t.Fatalf("include_ai: %d actions, %d left", len(got), left)
	}
	_, err := Generate(Session{Actions: []capture.Action{ai}}, Options{})
	if !errors.Is(err, ErrNoActions) || !strings.Contains(err.Error(), "include_ai:true") {
		t.Fatalf("only the AI's: %v", err)
	}
}

// A click's locator is unique on the recorded page.
func TestClickedIsUnique(t *testing.T) {
	add := func(matches int, w *capture.Scope) capture.Action {
		a := act(0, "click", "#list > li:nth-of-type(2) > button", "Add", "", "")
		a.Role, a.Matches, a.Within = "button", matches, w
		return a
	}
	byRole := `getByRole('button', { name: 'Add', exact: true })`
	for _, tc := range []struct {
		a          capture.Action
		want, conf string
	}{
		{add(1, nil), "page." + byRole, ""},
		{add(3, &capture.Scope{Role: "listitem", Text: "Pears"}), `page.getByRole('listitem').filter({ hasText: 'Pears' }).` + byRole, ""},
		{add(3, &capture.Scope{Role: "region", Name: "Cart"}), `page.getByRole('region', { name: 'Cart', exact: true }).` + byRole, ""},
		{add(3, &capture.Scope{Selector: "#cart"}), `page.locator('#cart').` + byRole, ""},
		{add(3, nil), `page.locator('#list > li:nth-of-type(2) > button')`, Low},
		{add(0, nil), "page." + byRole, ""}, // an older recording: as before
	} {
		if l := clicked(tc.a); l.expr != tc.want || l.conf != tc.conf {
			t.Errorf("clicked(%d, %v) = %s (%s), want %s (%s)", tc.a.Matches, tc.a.Within, l.expr, l.conf, tc.want, tc.conf)
		}
	}
	named := add(1, nil)
	named.Name = "Add pears"
	if l := clicked(named); l.expr != `page.getByRole('button', { name: 'Add pears', exact: true })` {
		t.Errorf("the accessible name: %s", l.expr)
	}
	res, err := Generate(Session{Actions: []capture.Action{nav(0, page), add(3, &capture.Scope{Role: "listitem", Text: "Pears"})}}, Options{})
	if err != nil || !strings.Contains(res.Script, `await page.getByRole('listitem').filter({ hasText: 'Pears' }).`+byRole+".click();") {
		t.Fatalf("%v\n%s", err, res.Script)
	}
}

// Every generated test fails on an uncaught error of the page.
func TestFailsOnPageError(t *testing.T) {
	res, err := Generate(Session{Actions: []capture.Action{nav(0, page)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	on := strings.Index(res.Script, "page.on('pageerror', (e) => pageErrors.push(e.message));")
	goTo := strings.Index(res.Script, "await page.goto(")
	check := strings.Index(res.Script, "expect(pageErrors).toEqual([]);")
	if on < 0 || goTo < on || check < goTo || res.Assertions != 1 {
		t.Fatalf("assertions %d:\n%s", res.Assertions, res.Script)
	}
}

func TestLocate(t *testing.T) {
	for _, tc := range []struct {
		sel, text, typ, want, conf string
	}{
		{`[data-testid="save"]`, "Save", "click", `page.getByTestId('save')`, ""},
		{`[data-testid="a\"b"]`, "", "click", `page.getByTestId('a"b')`, ""},
		{`#f > button`, "Send", "click", `page.getByRole('button', { name: 'Send', exact: true })`, ""},
		{`body > nav > a:nth-of-type(2)`, "Docs", "click", `page.getByRole('link', { name: 'Docs', exact: true })`, ""},
		{`button[name="go"]`, "Go", "click", `page.getByRole('button', { name: 'Go', exact: true })`, ""},
		{`#email`, "", "input", `page.locator('#email')`, ""},
		{`#save`, "Save", "click", `page.locator('#save')`, ""},
		{`input[name="q"]`, "", "input", `page.locator('input[name="q"]')`, ""},
		{`[data-cy="x"]`, "", "click", `page.locator('[data-cy="x"]')`, ""},
		{`body > div:nth-of-type(2) > span`, "Open", "click", `page.getByText('Open', { exact: true })`, Medium},
		{`body > div:nth-of-type(2) > input`, "", "input", `page.locator('body > div:nth-of-type(2) > input')`, Low},
		{``, "", "click", `page.locator('body')`, Low},
	} {
		l := locate(tc.sel, tc.text, tc.typ)
		if l.expr != tc.want || l.conf != tc.conf {
			t.Errorf("locate(%q, %q) = %s (%s), want %s (%s)", tc.sel, tc.text, l.expr, l.conf, tc.want, tc.conf)
		}
	}
}

func TestJSString(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:               `'plain'`,
		`it's`:                `'it\'s'`,
		"a\\b\nc\td\re":       `'a\\b\nc\td\re'`,
		"nul\x00 bell\x07":    `'nul\u0000 bell\u0007'`,
		"line\u2028sep":       `'line\u2028sep'`,
		"é — 漢字":              `'é — 漢字'`,
		"bad \xff byte":       `'bad \uFFFD byte'`,
		`</script><b>"q"</b>`: `'</script><b>"q"</b>'`,
	} {
		if got := jsString(in); got != want {
			t.Errorf("jsString(%q) = %s, want %s", in, got, want)
		}
	}
	if got := pathRegex("/a.b/(c)"); got != `/\/a\.b\/\(c\)(?:[?#]|$)/` {
		t.Errorf("pathRegex: %s", got)
	}
}

func TestShapeOf(t *testing.T) {
	if _, ok := shapeOf("<html>"); ok {
		t.Error("HTML has a JSON shape")
	}
	if _, ok := shapeOf(`{"a":1} {"b":2}`); ok {
		t.Error("two documents have one shape")
	}
	deep, _ := shapeOf(`{"a":{"b":{"c":{"d":1}}},"n":[]}`)
	if deep != `expect.objectContaining({ a: expect.objectContaining({ b: expect.objectContaining({ c: expect.any(Object) }) }), n: expect.any(Array) })` {
		t.Errorf("deep: %s", deep)
	}
	keys := "{"
	for i := range 20 {
		keys += fmt.Sprintf(`"k%02d":true,`, i)
	}
	wide, _ := shapeOf(strings.TrimSuffix(keys, ",") + "}")
	if strings.Count(wide, "expect.any(Boolean)") != shapeKeys {
		t.Errorf("wide: %s", wide)
	}
}

func TestSecretsBecomePlaceholders(t *testing.T) {
	s := Session{Actions: []capture.Action{
		nav(0, page),
		act(100, "input", "#pw", "", "", "password"),
		act(200, "input", `input[name="api_token"]`, "", "", "text"),
		act(300, "input", "#notes", "", "", "textarea"),
		act(400, "input", `[data-testid="card"]`, "", "4111 [redacted]", "text"),
		act(500, "input", "#pw", "", "", "password"),
	}}
	res, err := Generate(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Placeholders, ",") != "E2E_PW,E2E_API_TOKEN,E2E_CARD" {
		t.Fatalf("placeholders %v", res.Placeholders)
	}
	for _, want := range []string{
		"const E2E_PW = process.env.E2E_PW ?? '';",
		"await page.locator('#pw').fill(E2E_PW);",
		`await page.locator('input[name="api_token"]').fill(E2E_API_TOKEN);`,
		"await page.locator('#notes').fill('');",
		"await page.getByTestId('card').fill(E2E_CARD);",
	} {
		if !strings.Contains(res.Script, want) {
			t.Errorf("missing %s in\n%s", want, res.Script)
		}
	}
	if strings.Contains(res.Script, "[redacted]") || strings.Count(res.Script, "const E2E_PW") != 1 {
		t.Errorf("a redacted value typed literally, or a placeholder declared twice:\n%s", res.Script)
	}
	if res.Filename != "recorded-flow-on-form.spec.ts" || res.Steps != 6 {
		t.Errorf("filename %s steps %d", res.Filename, res.Steps)
	}
}

func TestOriginsAndDOMState(t *testing.T) {
	s := Session{
		Actions: []capture.Action{nav(0, page), nav(60000, "https://other.test/x?y=1")},
		DOM:     &DOM{URL: page, Headings: []browser.Heading{{Level: 1, Text: "Form"}}},
	}
	res, _ := Generate(s, Options{})
	for _, want := range []string{
		"test.use({ baseURL: 'http://localhost:3000' });",
		"await page.goto('/form');",
		"await page.goto('https://other.test/x?y=1');",
		"// The DOM state was read on '/form', not on the page this test ends on",
	} {
		if !strings.Contains(res.Script, want) {
			t.Errorf("missing %s in\n%s", want, res.Script)
		}
	}
	if res.Assertions != 1 { // the page's errors
		t.Errorf("assertions %d", res.Assertions)
	}
	s.Actions = s.Actions[:1]
	res, _ = Generate(s, Options{BaseURL: "http://127.0.0.1:8080/"})
	if !strings.Contains(res.Script, "baseURL: 'http://127.0.0.1:8080' }") || res.Assertions != 2 ||
		!strings.Contains(res.Script, "getByRole('heading', { level: 1, name: 'Form' })") {
		t.Errorf("base URL override or DOM assertion missing:\n%s", res.Script)
	}
}

// A request that started after the next action belongs to that action,
// and a response from another origin is not waited for.
func TestWaitsFollowTheirAction(t *testing.T) {
	s := Session{
		Actions: []capture.Action{nav(0, page), act(1000, "click", "#a", "A", "", ""), act(2000, "click", "#b", "B", "", "")},
		Network: []capture.NetworkEntry{
			{TS: at(1500), Method: "GET", URL: "http://localhost:3000/api/a", Status: 200},
			{TS: at(1600), Method: "GET", URL: "https://cdn.test/api/x", Status: 200},
			{TS: at(2100), Method: "GET", URL: "http://localhost:3000/api/b", Status: 200},
			{TS: at(9000), Method: "GET", URL: "http://localhost:3000/api/late", Status: 200},
		},
	}
	res, _ := Generate(s, Options{})
	a := strings.Index(res.Script, "pathname === '/api/a'")
	clickA := strings.Index(res.Script, "page.locator('#a').click()")
	b := strings.Index(res.Script, "pathname === '/api/b'")
	clickB := strings.Index(res.Script, "page.locator('#b').click()")
	if a < 0 || b < 0 || !(a < clickA && clickA < b && b < clickB) {
		t.Fatalf("waits not armed before their own action:\n%s", res.Script)
	}
	if strings.Contains(res.Script, "/api/x") || strings.Contains(res.Script, "/api/late") {
		t.Fatalf("waited for another origin or a request past the window:\n%s", res.Script)
	}
}

func TestRedactedURLParamsBecomePlaceholders(t *testing.T) {
	s := Session{Actions: []capture.Action{
		nav(0, "http://localhost:3000/reset?token=[redacted]&next=/a`b${c}"),
		nav(60000, "http://localhost:3000/confirm?code=%5Bredacted%5D"),
	}}
	res, _ := Generate(s, Options{})
	for _, want := range []string{
		"await page.goto(`/reset?token=${encodeURIComponent(E2E_TOKEN)}&next=/a\\`b\\${c}`);",
		"await page.goto(`/confirm?code=${encodeURIComponent(E2E_CODE)}`);",
	} {
		if !strings.Contains(res.Script, want) {
			t.Errorf("missing %s in\n%s", want, res.Script)
		}
	}
	if strings.Contains(res.Script, "redacted]") || strings.Join(res.Placeholders, ",") != "E2E_TOKEN,E2E_CODE" {
		t.Errorf("placeholders %v:\n%s", res.Placeholders, res.Script)
	}
}

// Capture started on an open page, then the tab moved while actions were
// off: the test still opens the page first and asserts the move.
func TestMissedNavigationsAreAdded(t *testing.T) {
	s := Session{Actions: []capture.Action{
		act(1000, "click", "#go", "Go", "", ""),
		{TS: at(2000), Type: "click", Selector: "#done", Text: "Done", Page: "http://localhost:3000/next"},
	}}
	res, err := Generate(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	goTo := strings.Index(res.Script, "await page.goto('/form');")
	click := strings.Index(res.Script, "page.locator('#go').click()")
	url := strings.Index(res.Script, `await expect(page).toHaveURL(/\/next(?:[?#]|$)/);`)
	if goTo < 0 || click < goTo || url < click || res.Steps != 3 {
		t.Fatalf("steps %d:\n%s", res.Steps, res.Script)
	}
}

func TestOrderedLeavesTheSubmitToEnter(t *testing.T) {
	got, _ := ordered([]capture.Action{
		act(1030, "submit", "#f", "", "", ""),
		act(1020, "keypress", "#q", "Enter", "", ""),
		act(1000, "input", "#q", "", "lyon", "text"),
		nav(0, page),
	}, Options{})
	var seq []string
	for _, a := range got {
		seq = append(seq, a.Type+":"+a.Selector+a.Text)
	}
	if want := "navigation: input:#q keypress:#qEnter"; strings.Join(seq, " ") != want {
		t.Fatalf("order\n got %s\nwant %s", strings.Join(seq, " "), want)
	}
}

// The network list has every request of the page (documents, scripts,
// images: the extension's webRequest capture); a step waits for the API
// calls it caused, not for the images the page loads anyway.
func TestStepsWaitForAPICallsNotResources(t *testing.T) {
	s := Session{
		Actions: []capture.Action{nav(0, page), act(1000, "click", "#save", "Save", "", "")},
		Network: []capture.NetworkEntry{
			{TS: at(-5), Method: "GET", URL: page, Status: 200, Type: "document", Page: page},
			{TS: at(1010), Method: "POST", URL: "http://localhost:3000/api/save", Status: 200, Type: "fetch", Page: page},
			{TS: at(1020), Method: "GET", URL: "http://localhost:3000/img/saved.png", Status: 404, Type: "image", Page: page},
		},
	}
	res, err := Generate(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Script, "/api/save") || strings.Contains(res.Script, "saved.png") {
		t.Fatalf("the steps should wait for /api/save only:\n%s", res.Script)
	}
}
