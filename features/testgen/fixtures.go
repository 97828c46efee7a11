package testgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/capture"
)

// bodyOf finds the body captured for a waterfall entry (capture.BodyFor).
func (g *gen) bodyOf(n capture.NetworkEntry) *capture.NetworkBody {
	if i := capture.BodyFor(n, g.s.Bodies, nil); i >= 0 {
		return &g.s.Bodies[i]
	}
	return nil
}

// usable reports whether a captured response body can be replayed or
// asserted on: whole and textual.
func usable(b *capture.NetworkBody) bool {
	return b != nil && !b.Truncated && !strings.HasPrefix(b.ResponseBody, "[Binary:")
}

func contentType(b *capture.NetworkBody) string {
	ct := b.ContentType
	if ct == "" {
		ct = b.ResponseHeaders["content-type"]
	}
	return ct
}

// shape asserts the structure of a JSON response, unless it is served by a
// fixture (asserting a mock's own shape proves nothing).
func (g *gen) shape(v string, n request) {
	b := g.bodyOf(n.NetworkEntry)
	switch {
	case g.mocked[n.Method+" "+n.path]:
		return
	case b == nil:
		return
	case !usable(b):
		g.line(1, "// %s: the recorded body was truncated or binary, so its shape is not asserted", v)
		return
	}
	sh, ok := shapeOf(b.ResponseBody)
	if !ok {
		return
	}
	g.assert(fmt.Sprintf("expect(await %s.json()).toEqual(%s);", v, sh), Medium, "the structure of the recorded response, not its values")
}

// reply is one captured response a fixture serves.
type reply struct {
	status int
	ct     string
	body   string
}

// writeMocks serves every captured API response of the app with
// page.route, in recorded order per endpoint; the last one repeats.
func (g *gen) writeMocks() {
	if !g.o.MockAPI {
		return
	}
	type endpoint struct {
		method, path string
		replies      []reply
	}
	var eps []*endpoint
	idx := map[string]*endpoint{}
	bodies := append([]capture.NetworkBody(nil), g.s.Bodies...)
	sortBodies(bodies)
	for i := range bodies {
		b := &bodies[i]
		if !keep(g.o.URLFilter, b.Page, b.URL) || !usable(b) || b.Status == 0 || (g.origin != "" && originOf(b.URL) != g.origin) {
			continue
		}
		k := b.Method + " " + pathname(b.URL)
		e := idx[k]
		if e == nil {
			e = &endpoint{method: b.Method, path: pathname(b.URL)}
			idx[k] = e
			eps = append(eps, e)
		}
		r := reply{b.Status, contentType(b), b.ResponseBody}
		if n := len(e.replies); n == 0 || e.replies[n-1] != r {
			e.replies = append(e.replies, r)
		}
	}
	if len(eps) == 0 {
		return
	}
	g.line(1, "// API fixtures: the responses captured during the recording, served in order")
	g.line(1, "// (the last repeats), so the test does not depend on the backend's data.")
	for _, e := range eps {
		g.mocks++
		g.mocked[e.method+" "+e.path] = true
		serve := ""
		if len(e.replies) == 1 {
			serve = fulfill(e.replies[0])
		} else {
			list := g.ident(e.method + " " + lastSegment(e.path) + " replies")
			g.line(1, "const %s = [", list)
			for _, r := range e.replies {
				g.line(2, "%s,", fulfill(r))
			}
			g.line(1, "];")
			g.line(1, "let %sServed = 0;", list)
			serve = fmt.Sprintf("%s[Math.min(%sServed++, %s.length - 1)]", list, list, list)
		}
		g.line(1, "await page.route((url) => url.pathname === %s, async (route) => {", jsString(e.path))
		g.line(2, "if (route.request().method() !== %s) return route.fallback();", jsString(e.method))
		g.line(2, "await route.fulfill(%s);", serve)
		g.line(1, "});")
	}
}

func fulfill(r reply) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{ status: %d", r.status)
	if r.ct != "" {
		fmt.Fprintf(&b, ", contentType: %s", jsString(r.ct))
	}
	if r.body != "" {
		fmt.Fprintf(&b, ", body: %s", jsString(r.body))
	}
	b.WriteString(" }")
	return b.String()
}

func sortBodies(bs []capture.NetworkBody) {
	slices.SortStableFunc(bs, func(a, b capture.NetworkBody) int { return a.TS.Compare(b.TS.Time) })
}

// hasDigit: text with numbers in it often changes between runs.
func hasDigit(text string) bool { return strings.ContainsAny(text, "0123456789") }

// writeDOM asserts what was on the page at the end: its headings and
// test-id elements, when the DOM state is of the page the test ends on.
func (g *gen) writeDOM() {
	d := g.s.DOM
	if d == nil {
		return
	}
	if d.URL != "" && g.lastURL != "" && pathOnly(d.URL) != pathOnly(g.lastURL) {
		g.line(0, "")
		g.line(1, "// The DOM state was read on %s, not on the page this test ends on: no DOM assertions.", shown(pathOnly(d.URL)))
		return
	}
	var lines [][3]string
	for i, h := range d.Headings {
		if i == maxHeadings {
			break
		}
		text := strings.Join(strings.Fields(h.Text), " ")
		if text == "" || strings.Contains(text, redacted) {
			continue
		}
		conf := Medium
		if hasDigit(text) {
			conf = Low
		}
		lines = append(lines, [3]string{fmt.Sprintf("await expect(page.getByRole('heading', { level: %d, name: %s })).toBeVisible();", h.Level, jsString(text)), conf, "heading on the page when the test was generated"})
	}
	n := 0
	for _, e := range d.Elements {
		id := e.Attributes["data-testid"]
		if id == "" || (e.Visible != nil && !*e.Visible) {
			continue
		}
		if n++; n > maxTestIDs {
			break
		}
		lines = append(lines, g.testIDAssert(id, e)...)
	}
	if len(lines) == 0 {
		return
	}
	g.line(0, "")
	g.line(1, "// The page as it stood at the end of the recording.")
	for _, l := range lines {
		g.assert(l[0], l[1], l[2])
	}
}

func (g *gen) testIDAssert(id string, e browser.Element) [][3]string {
	loc := "page.getByTestId(" + jsString(id) + ")"
	out := [][3]string{{fmt.Sprintf("await expect(%s).toBeVisible();", loc), Medium, "visible when the test was generated"}}
	text := strings.Join(strings.Fields(e.Text), " ")
	if text == "" || e.TextTruncated || len(text) > maxText || strings.Contains(text, redacted) {
		return out
	}
	conf, why := Medium, "its text when the test was generated"
	if hasDigit(text) {
		conf, why = Low, "its text holds numbers, which often change between runs"
	}
	return append(out, [3]string{fmt.Sprintf("await expect(%s).toContainText(%s);", loc, jsString(text)), conf, why})
}
