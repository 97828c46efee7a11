//go:build e2e

package e2e

import (
	"encoding/json"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// cardSecrets are made-up secrets for cards.html, built from parts so that
// no file holds one whole: two Luhn-valid card numbers, XML and HTML
// secrets, a Stripe-format key and a GraphQL password.
func cardSecrets() map[string]string {
	const alnum = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	card := "4539" + "1488" + "0343" + "6467"
	return map[string]string{
		"card":        card,
		"cardGrouped": card[:4] + " " + card[4:8] + " " + card[8:12] + " " + card[12:],
		"xmlPw":       "Xml-pass-" + alnum[12:24],
		"xmlToken":    "xmlTok" + alnum[30:50],
		"stripe":      "sk_" + "live_" + alnum[6:30],
		"gqlPw":       "Gql-pass-" + alnum[40:52],
		"gqlCard":     "5555" + "5555" + "5555" + "4444",
	}
}

// leaks says which of the secrets text holds whole (a card also by its
// middle digits, however grouped).
func leaks(text string, secrets map[string]string) []string {
	var out []string
	flat := strings.NewReplacer(" ", "", "-", "").Replace(text)
	for name, v := range secrets {
		if strings.Contains(text, v) || (strings.HasPrefix(name, "card") || name == "gqlCard") && strings.Contains(flat, v[4:12]) {
			out = append(out, name)
		}
	}
	return out
}

// typedCard is what the human types into cards.html: the card, its expiry
// and code into the card fields, and a note with the card into a plain one.
func typedCard(s map[string]string) map[string]string {
	return map[string]string{"#card": s["card"], "#exp": "12/30", "#cvc": "737", "#note": "paid with " + s["cardGrouped"]}
}

// A card typed into the card fields and into a note, a card in a form
// body and a console message, an XML body with a secret element inside a
// secret one, an HTML body with a <token>, a Stripe key in a named URL
// parameter and a GraphQL mutation: nothing whole anywhere the AI or the
// disk reads (observe, the dashboard's stream, the HAR, the generated
// test, the security audit and SARIF, the audit log, the history files);
// the GraphQL query stays readable; the card field is blank in a
// screenshot.
func TestCardsXMLAndGraphQLNeverWhole(t *testing.T) {
	r := newRig(t, "cards-agent", map[string]any{"network_bodies": true, "action_replay": true, "log_level": "all"})
	stream := readEventStream(t, r.port)
	// What the content script hands the worker, recorded in the worker: no card leaves the page.
	if _, err := chromedp.Run(r.b.sw, chromedp.Evaluate[bool](`globalThis.__received = [];
		chrome.runtime.onMessage.addListener((m) => { if (m && m.type === 'events') __received.push(JSON.stringify(m.events)); }); true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/cards.html")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the page tracked", func() bool {
		return strings.Contains(mustJSON(observe(t, r.ai, map[string]any{"what": "page"})), "/cards.html")
	})
	S := cardSecrets()
	for sel, text := range typedCard(S) {
		if err := chromedp.Do(r.b.ctx, chromedp.SendKeys(chromedp.CSS(sel), text)); err != nil {
			t.Fatal(err)
		}
	}
	// The card field, filled, in a screenshot: blank inside its border.
	shot := screenshot(t, r.ai, map[string]any{"selector": "#card", "format": "png"})
	if shot.code != "" {
		t.Fatalf("screenshot: %s %s", shot.code, shot.msg)
	}
	if n := darkPixels(inner(shot.img)); n > 0 {
		t.Errorf("the card field shows %d dark pixels in a screenshot", n)
	}
	if err := chromedp.Do(r.b.ctx, chromedp.Click(chromedp.CSS("h1"))); err != nil { // blur commits the inputs
		t.Fatal(err)
	}
	js, _ := json.Marshal(S)
	if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`(send(`+string(js)+`), true)`)); err != nil {
		t.Fatal(err)
	}
	cardsSeen(t, r.ai, r.port, S, stream)
	received, err := chromedp.Run(r.b.sw, chromedp.Evaluate[string](`__received.join('\n')`))
	if err != nil {
		t.Fatal(err)
	}
	inPage := map[string]string{"card": S["card"], "cardGrouped": S["cardGrouped"], "gqlCard": S["gqlCard"], "stripe": S["stripe"], "gqlPw": S["gqlPw"]}
	if l := leaks(received, inPage); len(l) > 0 || !strings.Contains(received, "op=graphql") {
		t.Errorf("the content script handed the worker %v whole (%d bytes)", l, len(received))
	}
}

// inner is the middle of a field's screenshot, away from its border and
// the margin around it.
func inner(img image.Image) image.Image {
	b := img.Bounds()
	dx, dy := b.Dx()/5, b.Dy()/3
	return img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(image.Rect(b.Min.X+dx, b.Min.Y+dy, b.Max.X-dx, b.Max.Y-dy))
}

// cardsSeen waits for what cards.html sent and the human typed, then
// checks every place the AI or the disk reads: Chromium and Firefox alike.
func cardsSeen(t *testing.T, ai mcpClient, port int, S map[string]string, stream func() string) {
	t.Helper()
	results := map[string]map[string]any{}
	waitFor(t, 30*time.Second, "the five bodies, the log and the four fields", func() bool {
		for _, what := range []string{"logs", "network", "network_bodies", "actions"} {
			results[what] = observe(t, ai, map[string]any{"what": what, "limit": 100})
		}
		as, echoed := entries(results["actions"]), 0
		for _, b := range entries(results["network_bodies"]) {
			if u, _ := b["url"].(string); strings.Contains(u, "/api/echo") {
				echoed++
			}
		}
		return echoed >= 5 &&
			strings.Contains(mustJSON(results["logs"]), "charging card") &&
			find(as, "selector", "#card") != nil && find(as, "selector", "#exp") != nil && find(as, "selector", "#cvc") != nil &&
			find(as, "selector", "#note") != nil
	})
	seen := stringsIn(results)
	for _, w := range []string{
		"mutation Login($password: String!, $card: String!) { login(password: $password, card: $card) { token } }",
		`"password":"[redacted]"`, `"card":"[redacted]"`,
		"card=[redacted]&exp=12%2F30",
		"<login><user>ann</user><password><value>[redacted]</value></password></login>",
		"<login><token>[redacted]</token></login>",
		"charging card [redacted] for order 1001",
		"paid with [redacted]",
		"api_key=sk_live_[redacted]&page=2",
	} {
		if !strings.Contains(seen, w) {
			t.Errorf("observe lacks %q", w)
		}
	}
	as := entries(results["actions"])
	for _, sel := range []string{"#card", "#exp", "#cvc"} {
		if a := find(as, "selector", sel); a["value"] != nil {
			t.Errorf("what was typed into %s was kept: %v", sel, a)
		}
	}
	places := map[string]string{"observe": mustJSON(results)}

	// The generated test, the HAR, the audit and SARIF.
	gen, isErr, err := callTool(ai, "generate", map[string]any{"format": "test", "name": "pay"})
	if err != nil || isErr {
		t.Fatalf("generate test: %v %v", err, gen)
	}
	places["generated test"] = gen["script"].(string)
	har, isErr, err := callTool(ai, "generate", map[string]any{"format": "har"})
	if err != nil || isErr {
		t.Fatalf("generate har: %v %v", err, har)
	}
	b, err := os.ReadFile(har["path"].(string))
	if err != nil {
		t.Fatal(err)
	}
	places["HAR"] = string(b)
	rep := analyze(t, ai, map[string]any{"target": "security", "severity_min": "info"})
	places["security"] = mustJSON(rep)
	sar, isErr, err := callTool(ai, "generate", map[string]any{"format": "sarif"})
	if err != nil || isErr {
		t.Fatalf("generate sarif: %v %v", err, sar)
	}
	places["SARIF"] = mustJSON(sar)
	if strings.Contains(places["security"]+places["SARIF"], "[r...") {
		t.Errorf("a mark cut down in the audit: %s", places["security"])
	}
	if !strings.Contains(places["security"], "api_key=sk_live_[redacted]") {
		t.Errorf("the audit does not report the key in the URL: %s", places["security"])
	}

	// The files on disk: the audit log, the history, and the dashboard's stream.
	home := filepath.Join(testHome, ".gasoline")
	var audit, history strings.Builder
	for _, p := range append(auditGlob(home), "") {
		if p != "" {
			b, _ := os.ReadFile(p)
			audit.Write(b)
		}
	}
	filepath.WalkDir(filepath.Join(home, "history-"+strconv.Itoa(port)), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			history.Write(b)
		}
		return nil
	})
	if !strings.Contains(history.String(), "op=graphql") {
		t.Errorf("the history does not hold the bodies (%d bytes)", history.Len())
	}
	places["audit log"], places["history"] = audit.String(), history.String()
	waitFor(t, 20*time.Second, "the bodies in the dashboard's stream", func() bool { return strings.Contains(stream(), "op=graphql") })
	places["dashboard stream"] = stream()
	for where, text := range places {
		if l := leaks(text, S); len(l) > 0 {
			t.Errorf("%s holds %v whole", where, l)
		}
	}
}

// auditGlob lists the audit files in home, rotated ones included.
func auditGlob(home string) []string {
	m, _ := filepath.Glob(filepath.Join(home, "audit*.jsonl*"))
	return m
}
