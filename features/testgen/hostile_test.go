package testgen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
)

// separators are what a recorded value may hold to end the literal, the
// comment or the line it is written in, and start code of its own.
var separators = []string{"\n", "\r", "\u2028", "\u2029", "\u2028\r", "*/\n", "'\n", `"` + "\n", "\\'\n", "`\n", "${", "\\\n"}

// payload is code of the page's that must never run: sep, then a statement.
func payload(i int) string {
	return fmt.Sprintf("x%s require('fs').writeFileSync('/tmp/PWNED%d', '1'); //", separators[i%len(separators)], i)
}

// hostileSession records every kind of value the generator writes, each
// holding a payload; the separators go round the values from off.
func hostileSession(off int) (Session, Options) {
	n := off
	p := func() string {
		n++
		return payload(n)
	}
	origin := "http://localhost:3000"
	s := Session{
		Actions: []capture.Action{
			nav(0, origin+"/start/"+p()),
			nav(100, origin+"/reset?token=[redacted]&next="+p()),
			act(1000, "click", p(), p(), "", ""),
			act(1100, "input", p(), "", p(), "text"),
			act(1200, "input", p(), "", p(), "select-one"),
			act(1300, "input", p(), "", "", "file"),
			act(1400, "keypress", "", p(), "", ""),
			act(1500, "submit", p(), "", "", ""),
			{TS: at(1600), Type: "navigation", URL: origin + "/done/" + p(), Page: origin + "/done/" + p()},
		},
		Network: []capture.NetworkEntry{
			{TS: at(1050), Method: "GET", URL: origin + "/api/" + p(), Status: 200},
			{TS: at(1550), Method: "POST" + p(), URL: origin + "/api/post", Status: 201},
		},
	}
	s.Bodies = []capture.NetworkBody{{TS: at(1050), Method: "GET", URL: s.Network[0].URL, Status: 200,
		ContentType: "application/json" + p(), ResponseBody: fmt.Sprintf(`{%q: 1, "ok": {%q: "v"}}`, p(), p())}}
	s.DOM = &DOM{Headings: []browser.Heading{{Level: 1, Text: p()}},
		Elements: []browser.Element{{Attributes: map[string]string{"data-testid": p()}, Text: "t " + p()}}}
	return s, Options{Name: p(), MockAPI: true, Screenshots: true}
}

// jsToken is a piece of generated JavaScript: code, or a literal or
// comment, whose text is kept apart.
type jsToken struct {
	kind string // code, string, template, regex, comment
	text string
}

// lineTerminators end a // comment, and must not be raw in a literal.
const lineTerminators = "\n\r\u2028\u2029"

// tokenize splits the JavaScript the generator writes into code and the
// rest, as a JavaScript parser would: a // comment ends at any line
// terminator, a literal at its unescaped closing quote. It fails on a raw
// line terminator inside a literal.
func tokenize(src string) ([]jsToken, error) {
	var out []jsToken
	code := strings.Builder{}
	flush := func() {
		if code.Len() > 0 {
			out = append(out, jsToken{"code", code.String()})
			code.Reset()
		}
	}
	rs := []rune(src)
	prev := rune('(') // the last code character that is not a space
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '/' && i+1 < len(rs) && rs[i+1] == '/':
			j := i
			for j < len(rs) && !strings.ContainsRune(lineTerminators, rs[j]) {
				j++
			}
			flush()
			out = append(out, jsToken{"comment", string(rs[i:j])})
			i = j - 1
		case r == '/' && i+1 < len(rs) && rs[i+1] == '*':
			end := strings.Index(string(rs[i:]), "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated /* at %d", i)
			}
			flush()
			n := len([]rune(string(rs[i:])[:end+2]))
			out = append(out, jsToken{"comment", string(rs[i : i+n])})
			i += n - 1
		case r == '\'' || r == '"' || r == '`' || (r == '/' && strings.ContainsRune("(,=:[!&|?{};", prev)):
			kind := map[rune]string{'\'': "string", '"': "string", '`': "template", '/': "regex"}[r]
			j, class := i+1, false
			var subs []string
			for ; j < len(rs); j++ {
				c := rs[j]
				if c == '\\' {
					j++
					continue
				}
				if strings.ContainsRune(lineTerminators, c) && kind != "template" {
					return nil, fmt.Errorf("raw line terminator %U in a %s literal at %d: %q", c, kind, j, string(rs[i:j]))
				}
				if kind == "template" && c == '$' && j+1 < len(rs) && rs[j+1] == '{' {
					// A substitution is code: the generator's own are
					// calls without braces or literals inside.
					k := j + 2
					for k < len(rs) && rs[k] != '}' && !strings.ContainsRune("{'\"`", rs[k]) {
						k++
					}
					if k >= len(rs) || rs[k] != '}' {
						return nil, fmt.Errorf("a substitution the generator does not write at %d: %q", j, string(rs[i:k]))
					}
					subs = append(subs, string(rs[j+2:k]))
					j = k
					continue
				}
				if kind == "regex" && (c == '[' || c == ']') {
					class = c == '['
				}
				if c == r && !class {
					break
				}
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("unterminated %s literal at %d", kind, i)
			}
			flush()
			out = append(out, jsToken{kind, string(rs[i : j+1])})
			code.WriteString(strings.ToUpper(kind[:1])) // a stand-in, so the skeleton keeps its place
			for _, sub := range subs {
				code.WriteString("${" + sub + "}")
			}
			i, prev = j, 'x'
		default:
			code.WriteRune(r)
			if r != ' ' && r != '\t' && r != '\n' {
				prev = r
			}
		}
	}
	flush()
	return out, nil
}

// quoted is a quoted literal inside a comment (the comment's prose has
// apostrophes, so it is not tokenized as code).
var quoted = regexp.MustCompile(`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"`)

// outsideLiterals is what src holds outside its string, template and
// regex literals, comments included: a comment's recorded text is inside
// a literal too.
func outsideLiterals(t *testing.T, src string) string {
	t.Helper()
	toks, err := tokenize(src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	var b strings.Builder
	for _, tk := range toks {
		switch tk.kind {
		case "code":
			b.WriteString(tk.text)
		case "comment":
			b.WriteString(quoted.ReplaceAllString(tk.text, "S"))
		}
	}
	return b.String()
}

// Nothing recorded becomes code in a generated test: values holding line
// and paragraph separators, quotes, backslashes, backticks, `${` and `*/`
// give a test that parses, where every payload is inside a literal (in a
// comment too) and none of their code is outside one.
func TestHostileRecordingStaysInLiterals(t *testing.T) {
	for off := range separators {
		hs, ho := hostileSession(off)
		hostile, err := Generate(hs, ho)
		if err != nil {
			t.Fatal(err)
		}
		checkHostile(t, hostile.Script)
	}
}

func checkHostile(t *testing.T, script string) {
	t.Helper()
	outside := outsideLiterals(t, script)
	for _, bad := range []string{"PWNED", "require(", "writeFileSync", "*/"} {
		if i := strings.Index(outside, bad); i >= 0 {
			t.Fatalf("%q outside a literal: %q\n--- script ---\n%s", bad, outside[max(0, i-80):i+len(bad)], script)
		}
	}
	// The payloads the generator writes are in the test. Left out by
	// design: a clicked element's selector when its text locates it, a
	// navigation's page beside its URL, and the mocked request when its URL
	// does not parse (then not of the app's origin).
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`PWNED\d+`).FindAllString(script, -1) {
		seen[m] = true
	}
	if len(seen) < 16 {
		t.Fatalf("only %d payloads in the script, the test proves little:\n%s", len(seen), script)
	}
	for _, lt := range []string{"\r", "\u2028", "\u2029"} {
		if strings.Contains(script, lt) {
			t.Fatalf("a raw %q in the script", lt)
		}
	}
	nodeCheck(t, script)
}

// nodeCheck proves src parses as JavaScript once the one TypeScript cast
// the generator writes is removed.
func nodeCheck(t *testing.T, src string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed to parse the generated test")
	}
	p := filepath.Join(t.TempDir(), "hostile.mjs")
	os.WriteFile(p, []byte(asJS(src)), 0o600)
	if out, err := exec.Command(node, "--check", p).CombinedOutput(); err != nil {
		t.Fatalf("the generated test does not parse: %v\n%s\n%s", err, out, src)
	}
}

func TestTokenizeEndsCommentsAtEveryLineTerminator(t *testing.T) {
	for _, lt := range []string{"\n", "\r", "\u2028", "\u2029"} {
		toks, err := tokenize("a(); // c" + lt + "evil();")
		if err != nil || len(toks) != 3 || toks[2].kind != "code" || !strings.Contains(toks[2].text, "evil") {
			t.Fatalf("%q: %v %v", lt, toks, err)
		}
	}
	if _, err := tokenize("f('a\nb');"); err == nil {
		t.Fatal("a raw newline in a string was accepted")
	}
}

// Playwright itself transpiles and loads each hostile test (listing runs
// a spec's top level): every one parses as TypeScript, and nothing of the
// page's ran.
func TestHostileTestsLoadInPlaywright(t *testing.T) {
	dir := t.TempDir()
	mods, _ := filepath.Abs("../../node_modules")
	if _, err := os.Stat(filepath.Join(mods, "@playwright", "test")); err != nil {
		t.Fatalf("@playwright/test missing (run npm ci): %v", err)
	}
	os.Symlink(mods, filepath.Join(dir, "node_modules"))
	os.WriteFile(filepath.Join(dir, "playwright.config.js"), []byte("module.exports = { testDir: '.' };\n"), 0o600)
	for off := range separators {
		hs, ho := hostileSession(off)
		r, err := Generate(hs, ho)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("hostile%02d.spec.ts", off)), []byte(r.Script), 0o600)
	}
	before, _ := filepath.Glob("/tmp/PWNED*")
	cmd := exec.Command("npx", "--no-install", "playwright", "test", "--list")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1", "CI=1", "FORCE_COLOR=0")
	out, err := cmd.CombinedOutput()
	if want := fmt.Sprintf("Total: %d tests in %d files", len(separators), len(separators)); err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("playwright test --list: %v\n%s", err, out)
	}
	if after, _ := filepath.Glob("/tmp/PWNED*"); len(after) != len(before) {
		t.Fatalf("the page's code ran: %v", after)
	}
}
