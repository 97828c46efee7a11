package sourcemap

import (
	"net/url"
	"testing"
)

func TestRenderFoldsLibraries(t *testing.T) {
	fs := Parse("Error: x\n    at useThing (http://localhost:5173/node_modules/.vite/deps/react.js?v=1:10:2)\n" +
		"    at Cart (http://localhost:5173/src/Cart.tsx:4:9)\n    at Cart (http://localhost:5173/src/Cart.tsx:8:1)\n" +
		"    at render (http://localhost:5173/node_modules/.vite/deps/react.js?v=1:99:2)\n    at <anonymous>\n" +
		"    at http://cdn.example.com/x.js:1:2")
	rs := make([]Resolved, len(fs))
	for i, f := range fs {
		rs[i] = Resolved{Frame: f, Name: f.Func}
	}
	got := Render(rs, "http://localhost:5173")
	want := "Error: x\nCart /src/Cart.tsx:4:9\nCart :8:1\nat <anonymous>\nhttp://cdn.example.com/x.js:1:2\n+2 node_modules frames"
	if got.Stack != want || got.Top != "/src/Cart.tsx:4:9" || got.Code != "" {
		t.Errorf("%q\nwant %q (top %q)", got.Stack, want, got.Top)
	}
}

func TestParse(t *testing.T) {
	for line, want := range map[string]Frame{
		"at f (http://a/b.js:1:2)":                                 {Func: "f", URL: "http://a/b.js", Line: 1, Col: 2},
		"at async Object.g (https://a/b.js:3:4)":                   {Func: "async Object.g", URL: "https://a/b.js", Line: 3, Col: 4},
		"at https://a/b.js?x=1:3:4":                                {URL: "https://a/b.js?x=1", Line: 3, Col: 4},
		"f/<@http://a/b.js:5:6":                                    {Func: "f/<", URL: "http://a/b.js", Line: 5, Col: 6},
		"@http://a/b.js:5:6":                                       {URL: "http://a/b.js", Line: 5, Col: 6},
		"at <anonymous>":                                           {},
		"at eval (eval at f (http://a/b.js:1:2), <anonymous>:1:1)": {Func: "eval"},
		"TypeError: x":                                             {},
		"at f (chrome-extension://x/y.js:1:2)":                     {},
	} {
		got := parseLine(line)
		want.Raw = line
		if want.Func == "eval" {
			want.Func = ""
		}
		if got != want {
			t.Errorf("%q: %+v, want %+v", line, got, want)
		}
	}
}

func TestDevelopment(t *testing.T) {
	for u, want := range map[string]bool{
		"http://localhost:5173/a.js": true, "http://app.localhost/a.js": true, "http://127.0.0.2/": true,
		"http://[::1]:3000/": true, "http://10.1.2.3/": true, "http://192.168.0.9:8080/": true,
		"http://172.20.0.1/": true, "https://example.com/": false, "http://8.8.8.8/": false,
		"http://localhost.evil.com/": false, "http://127.0.0.1.nip.io/": false, "file:///a.js": false,
	} {
		p, _ := url.Parse(u)
		if Development(p) != want {
			t.Errorf("%s: %v", u, !want)
		}
	}
}

func TestEnclosing(t *testing.T) {
	code := `export class Cart {
  total(items: Item[]): number {
    return items.map((i) => {
      return i.price;
    });
  }
}
const apply = async (c) => {
  if (c) {
    go();
  }
};
function outer() {
  function inner() { return 1; }
  call();
}`
	for _, c := range []struct {
		line, col int
		want      string
	}{{3, 5, "total"}, {4, 7, ""}, {10, 5, "apply"}, {15, 3, "outer"}, {14, 22, "inner"}, {1, 1, ""}} {
		if got := enclosing(newText(code), c.line, c.col); got != c.want {
			t.Errorf("%d:%d = %q, want %q", c.line, c.col, got, c.want)
		}
	}
}
