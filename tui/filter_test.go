package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
)

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		in    string
		terms []term
		words []string
		err   string
	}{
		{in: "status>=400", terms: []term{{field: "status", op: ">=", val: "400", num: 400}}},
		{in: "status<500 status>399", terms: []term{{field: "status", op: "<", val: "500", num: 500}, {field: "status", op: ">", val: "399", num: 399}}},
		{in: "status<=204 status=200", terms: []term{{field: "status", op: "<=", val: "204", num: 204}, {field: "status", op: "=", val: "200", num: 200}}},
		{in: "method:POST url:/api", terms: []term{{field: "method", op: ":", val: "post"}, {field: "url", op: ":", val: "/api"}}},
		{in: "LEVEL:Error gateway", terms: []term{{field: "level", op: ":", val: "error"}}, words: []string{"gateway"}},
		{in: `type:img "bad gateway"  TypeError: http://x/y`, terms: []term{{field: "type", op: ":", val: "img"}},
			words: []string{"bad gateway", "typeerror:", "http://x/y"}},
		{in: "  "},
		{in: "status>=", err: "status>= needs a value, as in status>=400"},
		{in: "status>=abc", err: "status>=abc: a status is a number"},
		{in: "method>=3", err: "only status compares with < and >"},
		{in: "size>10", err: `no field "size": filter by status, method, level, url, type`},
		{in: `"open`, err: "a quote is not closed"},
	} {
		q, err := parseQuery(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !equalTerms(q.terms, tc.terms) || strings.Join(q.words, "|") != strings.Join(tc.words, "|") {
			t.Errorf("%q: %+v %q, want %+v %q", tc.in, q.terms, q.words, tc.terms, tc.words)
		}
	}
}

func equalTerms(a, b []term) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestQueryMatch(t *testing.T) {
	ok := networkRow(capture.NetworkEntry{Method: "GET", URL: "http://shop/api/cart", Status: 200, Type: "fetch"})
	fail := networkRow(capture.NetworkEntry{Method: "POST", URL: "http://shop/api/checkout", Status: 500, Type: "xhr"})
	gone := networkRow(capture.NetworkEntry{Method: "GET", URL: "http://shop/logo.png", Failed: true, Type: "img"})
	redirect := networkRow(capture.NetworkEntry{Method: "GET", URL: "http://shop/old", Status: 301})
	logErr := consoleRow(capture.LogEntry{Level: "error", Message: "boom", Stack: "at deepFrameAlpha (app.js:1)", Source: "http://shop/app.js"})
	exc := consoleRow(capture.LogEntry{Level: "error", Kind: "exception", Message: "TypeError: x"})
	info := consoleRow(capture.LogEntry{Level: "info", Message: "hello"})
	rows := map[string]row{"ok": ok, "fail": fail, "gone": gone, "redirect": redirect, "logErr": logErr, "exc": exc, "info": info}
	bodies := func(src any) []string {
		if e, ok := src.(capture.NetworkEntry); ok && e.Status == 500 {
			return []string{`{"error":"upstream gateway timed out"}`}
		}
		return nil
	}
	for _, tc := range []struct {
		q    string
		want string // names of the rows kept, in the order of names
	}{
		{"status>=400", "fail"},
		{"status>=500", "fail"},
		{"status<=200", "ok gone"},
		{"status>300", "fail redirect"},
		{"status<300", "ok gone"},
		{"status<=301 status>=300", "redirect"},
		{"status=500", "fail"},
		{"method:post", "fail"},
		{"method=GET url:/api", "ok"},
		{"level:error", "fail gone logErr exc"},
		{"level:error url:app.js", "logErr"},
		{"type:img", "gone"},
		{"type:exception", "exc"},
		{"gateway", "fail"},
		{"deepframealpha", "logErr"},
		{"gateway method:GET", ""},
		{`"upstream gateway"`, "fail"},
		{"", "ok fail gone redirect logErr exc info"},
	} {
		q, err := parseQuery(tc.q)
		if err != nil {
			t.Fatalf("%q: %v", tc.q, err)
		}
		var got []string
		for _, name := range []string{"ok", "fail", "gone", "redirect", "logErr", "exc", "info"} {
			if q.match(rows[name], bodies) {
				got = append(got, name)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q keeps %q, want %q", tc.q, got, tc.want)
		}
	}
}

// A filter typed in the prompt: the Network pane keeps the failing rows;
// a word of a response body finds its request; a filter that does not
// parse says why in the prompt and keeps the last one that did, and what
// was typed.
func TestFilterInThePane(t *testing.T) {
	m := sampleModelAt(120, 40)
	m.Update(batchMsg{EntriesMsg{
		Network: []capture.NetworkEntry{
			{TS: at(1), Method: "GET", URL: "http://shop/api/cart", Status: 200},
			{TS: at(2), Method: "POST", URL: "http://shop/api/checkout", Status: 502},
		},
		Bodies: []capture.NetworkBody{{TS: at(2), Method: "POST", URL: "http://shop/api/checkout", Status: 502,
			ResponseBody: `{"error":"bad gateway from upstream"}`}},
	}})
	m.Update(keyMsg("2"))
	typeKeys(m, "/status>=400")
	v := plainView(m.View())
	if strings.Contains(v, "/api/cart") || !strings.Contains(v, "/api/checkout") || !strings.Contains(v, `filter "status>=400"`) {
		t.Fatalf("status>=400 in the Network pane:\n%s", v)
	}
	m.Update(keyMsg("enter"))
	m.Update(keyMsg("esc"))
	typeKeys(m, "/upstream")
	if v := plainView(m.View()); strings.Contains(v, "/api/cart") || !strings.Contains(v, "/api/checkout") {
		t.Fatalf("a word of the response body does not find the request:\n%s", v)
	}
	m.Update(keyMsg("esc"))
	m.Update(keyMsg("/"))
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("status>=x")}) // in one read
	v = plainView(m.View())
	if !strings.Contains(v, "a status is a number") || !strings.Contains(v, "status>=x") || !strings.Contains(v, "/api/cart") {
		t.Fatalf("a bad filter:\n%s", v)
	}
	m.Update(keyMsg("enter")) // refused: the prompt stays
	if !m.filter.on {
		t.Fatal("enter took a filter that does not parse")
	}
}

// typeKeys sends each rune as a key.
func typeKeys(m *Model, s string) {
	for _, r := range s {
		m.Update(keyMsg(string(r)))
	}
}

// cURL of a captured request: its method, URL, headers and body as the
// server kept them; a secret header's value stays the redaction
// placeholder, and an Authorization header capture never keeps is named
// with it.
func TestCopyMenuCURL(t *testing.T) {
	yes := true
	e := capture.NetworkEntry{TS: at(1), Method: "POST", URL: "http://shop/api/checkout?x='1'", Status: 500}
	b := capture.NetworkBody{TS: at(1), Method: "POST", URL: e.URL, Status: 500, HasAuthHeader: &yes,
		RequestHeaders: map[string]string{"content-type": "application/json", "cookie": "[redacted]", "content-length": "12"},
		RequestBody:    `{"it's":1}`, ResponseBody: `{"error":"bad gateway"}`}
	items := copyChoices(e, "the line", []capture.NetworkBody{b})
	got := map[string]string{}
	var keys []string
	for _, it := range items {
		got[it.key] = it.text
		keys = append(keys, it.key)
	}
	want := `curl -X 'POST' 'http://shop/api/checkout?x='\''1'\''' -H 'content-type: application/json' -H 'cookie: [redacted]' -H 'Authorization: [redacted]' --data-raw '{"it'\''s":1}'`
	if got["c"] != want {
		t.Errorf("cURL:\n%s\nwant\n%s", got["c"], want)
	}
	if strings.Join(keys, "") != "cubrjl" || got["u"] != e.URL || got["b"] != b.ResponseBody || got["r"] != b.RequestBody || got["l"] != "the line" {
		t.Errorf("choices %q: %q", keys, got)
	}
	if !strings.Contains(got["j"], `"status": 500`) {
		t.Errorf("JSON: %s", got["j"])
	}
	// A GET without a captured body is the URL alone.
	if it := copyChoices(capture.NetworkEntry{Method: "GET", URL: "http://a/b"}, "", nil); it[0].text != "curl 'http://a/b'" {
		t.Errorf("GET: %q", it[0].text)
	}
}

// Y opens the menu on the selected row; its key copies that text over
// OSC 52, and esc closes it without copying.
func TestCopyMenuKeys(t *testing.T) {
	var out strings.Builder
	m := sampleModel()
	m.copy.out = &out
	m.Update(keyMsg("2"))
	m.Update(keyMsg("Y"))
	if m.copy.items == nil || !strings.Contains(plainView(m.View()), "cURL") {
		t.Fatalf("Y opened no menu:\n%s", plainView(m.View()))
	}
	m.Update(keyMsg("esc"))
	if m.copy.items != nil {
		t.Fatal("esc left the menu open")
	}
	m.Update(keyMsg("Y"))
	_, cmd := m.Update(keyMsg("u"))
	if cmd == nil {
		t.Fatal("u copied nothing")
	}
	cmd()
	if want := clipboardSeq("http://localhost:3000/api/checkout", false); out.String() != want || m.copy.items != nil {
		t.Fatalf("wrote %q, want %q", out.String(), want)
	}
}

// The Overrides pane takes the same filter, and says so on the tab bar
// at every width.
func TestFilterInTheOverridesPane(t *testing.T) {
	for _, w := range []int{80, 120} {
		m := sampleModelAt(w, 30)
		m.Update(keyMsg("5"))
		typeKeys(m, "/ws_")
		m.Update(keyMsg("enter"))
		v := plainView(m.View())
		if !strings.Contains(v, `filter "ws_": 1`) || !strings.Contains(v, "ws_mode") || strings.Contains(v, "log_level  ") {
			t.Fatalf("at %d:\n%s", w, v)
		}
	}
}

// Issue 58 row 6: a page load's requests are rows of the Network pane
// like fetch and XHR, and a filter tests them by what they show.
func TestQueryMatchesPageLoadRequests(t *testing.T) {
	hero := resourceRow(resourceEntry{Resource: perf.Resource{URL: "http://shop/assets/hero.png", Type: "img", Status: 404}})
	app := resourceRow(resourceEntry{Resource: perf.Resource{URL: "http://shop/app.js", Type: "script", Status: 200}})
	for q, want := range map[string]string{
		"status=404":              "hero",
		"type:img status>=400":    "hero",
		"type=script":             "app",
		"url:hero level:error":    "hero",
		"method:get status<300":   "app",
		"assets/hero":             "hero",
		"status>=400 method=POST": "",
	} {
		pq, err := parseQuery(q)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		var got []string
		if pq.match(hero, nil) {
			got = append(got, "hero")
		}
		if pq.match(app, nil) {
			got = append(got, "app")
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%q keeps %q, want %q", q, got, want)
		}
	}
}
