//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"
)

// testgenRoutes serves chat.html's socket and greeter.html's API, and the
// switch that changes the chat's reply or makes chat.html throw an
// uncaught error: POST /fixture/chat?reply=<prefix>&throws=1.
func testgenRoutes(mux *http.ServeMux) {
	var prefix atomic.Value
	prefix.Store("bot: ")
	var throws atomic.Bool
	mux.HandleFunc("/ws-chat", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			typ, b, err := c.Read(r.Context())
			if err != nil || c.Write(r.Context(), typ, append([]byte(prefix.Load().(string)), b...)) != nil {
				return
			}
		}
	})
	mux.HandleFunc("/chat-extra.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Header().Set("Cache-Control", "no-store")
		if throws.Load() {
			fmt.Fprint(w, `setTimeout(() => { throw new Error('late bug'); }, 0);`)
		}
	})
	mux.HandleFunc("POST /fixture/chat", func(w http.ResponseWriter, r *http.Request) {
		prefix.Store(r.URL.Query().Get("reply"))
		throws.Store(r.URL.Query().Get("throws") == "1")
	})
	mux.HandleFunc("POST /api/greeter", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Name string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"greeting": "Hello, " + in.Name + "!"})
	})
}

// shown waits until the page's element sel shows want.
func (r *rig) shown(t *testing.T, sel, want string) {
	t.Helper()
	var got string
	waitFor(t, 10*time.Second, fmt.Sprintf("%s to show %q", sel, want), func() bool {
		var err error
		got, err = chromedp.Run(r.b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).textContent`, sel)))
		return err == nil && got == want
	})
}

// generated asks for the test of the actions on pages matching filter (the
// recorded ones matching want, oldest first, at the server first), writes
// it into dir and returns its script.
func (r *rig) generated(t *testing.T, dir, filter string, want ...string) string {
	t.Helper()
	var got []string
	waitFor(t, 20*time.Second, fmt.Sprintf("the actions %q at the server", want), func() bool {
		got = got[:0]
		es := entries(observe(t, r.ai, map[string]any{"what": "actions", "url_filter": filter}))
		for i := len(es) - 1; i >= 0; i-- {
			if e := es[i]; e["type"] != "navigation" {
				got = append(got, fmt.Sprintf("%v %v%v", e["type"], e["selector"], e["value"]))
			}
		}
		return strings.Join(got, ", ") == strings.Join(want, ", ")
	})
	gen, isErr, err := callTool(r.ai, "generate", map[string]any{"format": "test", "name": filter, "url_filter": filter})
	if err != nil || isErr {
		t.Fatalf("generate test: %v %v", err, gen)
	}
	script := gen["script"].(string)
	if err := os.WriteFile(filepath.Join(dir, gen["filename"].(string)), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return script
}

// before reports whether every one of subs is in s, in that order.
func before(s string, subs ...string) bool {
	at := 0
	for _, sub := range subs {
		i := strings.Index(s[at:], sub)
		if i < 0 {
			return false
		}
		at += i + len(sub)
	}
	return true
}

// TestGeneratedTestOfListAndChatE2E (issue 58, rows 3 and 4): a human adds
// the second of three fruits whose buttons are all named "Add", then types
// a chat message and presses Send at once (Send keeps the focus in the
// field: no 'change' before the click). The tests Gasoline generates run
// green at once under @playwright/test; the chat's fails once its reply
// changes, and once its page throws an uncaught error.
func TestGeneratedTestOfListAndChatE2E(t *testing.T) {
	r := newRig(t, "testgen-green", map[string]any{"action_replay": true, "ws_mode": "messages"})
	dir := playwrightDir(t)
	if err := chromedp.Do(r.b.ctx,
		chromedp.Navigate(r.site+"/adds.html"),
		chromedp.Click(chromedp.CSS("#fruit li:nth-of-type(2) button")),
	); err != nil {
		t.Fatal(err)
	}
	r.shown(t, `[data-testid="cart"]`, "Cart: Pears")
	adds := r.generated(t, dir, "adds.html", "click #fruit > li:nth-of-type(2) > button<nil>")
	if !strings.Contains(adds, `await page.getByRole('listitem').filter({ hasText: 'Pears' }).getByRole('button', { name: 'Add', exact: true }).click();`) ||
		!strings.Contains(adds, `toContainText('Cart: Pears')`) {
		t.Fatalf("the Add button is not located within its item:\n%s", adds)
	}

	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(r.site+"/chat.html")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the chat's socket", func() bool {
		ok, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`window.__chatReady === true`))
		return err == nil && ok
	})
	tab := chromedp.FromContext(r.b.ctx).Target
	if err := chromedp.Do(r.b.ctx,
		chromedp.Click(chromedp.CSS("#msg")),
		chromedp.Action[chromedp.Void](func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
			_, err := cdp.Call(ctx, tab, input.InsertText, input.InsertTextParams{Text: "hello there"})
			return chromedp.Void{}, err
		}),
		chromedp.Click(chromedp.CSS("#send")),
	); err != nil {
		t.Fatal(err)
	}
	r.shown(t, `[data-testid="reply"]`, "bot: hello there")
	chat := r.generated(t, dir, "chat.html", "click #msg<nil>", "input #msghello there", "click #send<nil>")
	if !before(chat, "await page.locator('#msg').fill('hello there');", `click "Send"`, "await page.getByRole('button', { name: 'Send', exact: true }).click();", "toContainText('bot: hello there')") {
		t.Fatalf("the chat's steps are not the page's order:\n%s", chat)
	}

	if out, err := runPlaywright(dir); err != nil || !strings.Contains(out, "2 passed") {
		t.Fatalf("the generated tests fail against the working site: %v\n%s\n%s\n%s", err, out, adds, chat)
	}
	chatSwitch := func(query string) {
		resp, err := http.Post(r.site+"/fixture/chat?"+query, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	chatSwitch("reply=bot+says:+")
	if out, err := runPlaywright(dir); err == nil || !containsAll(out, "1 failed", "chat.html", "bot says: hello there") {
		t.Fatalf("the chat's test passes once its reply changed (err %v):\n%s", err, out)
	}
	chatSwitch("reply=bot:+&throws=1")
	if out, err := runPlaywright(dir); err == nil || !containsAll(out, "1 failed", "late bug") {
		t.Fatalf("the chat's test passes with an uncaught error on its page (err %v):\n%s", err, out)
	}
}

// TestGeneratedGreeterTestE2E (issue 58, row 4b): a human types a name, 40 ms
// a key, waits 300 ms and clicks "Greet me" (a quick press and release); the
// generated test fills, then clicks, and runs green at once under
// @playwright/test, also when the field's value and the click were recorded
// in the same millisecond.
func TestGeneratedGreeterTestE2E(t *testing.T) {
	r := newRig(t, "testgen-greeter", map[string]any{"action_replay": true})
	dir := playwrightDir(t)
	r.open(t, "/greeter.html")
	// The recorder's clock ticks once a second (a browser that coarsens timers does so by 100 ms or
	// more): what the page saw in one tick is in the same millisecond, ordered by its sequence alone.
	if !inWorld(r.b.ctx, contentWorld(t, r.b.ctx), `(() => { const now = Date.now; Date.now = () => Math.floor(now() / 1000) * 1000; return true; })()`) {
		t.Fatal("could not coarsen the content script's clock")
	}
	if err := chromedp.Do(r.b.ctx, chromedp.Click(chromedp.CSS("#name"))); err != nil {
		t.Fatal(err)
	}
	for _, k := range "Ada" {
		if err := chromedp.Do(r.b.ctx, chromedp.KeyEvent(string(k))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(40 * time.Millisecond) // the human's pace, not a wait for anything
	}
	time.Sleep(300 * time.Millisecond) // the human's pause before the click
	// Pressed and released as a human's quick click: the field's 'change' (at the press) and the
	// click (at the release) often fall in the same millisecond.
	tab := chromedp.FromContext(r.b.ctx).Target
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		if _, err := cdp.Call(r.b.ctx, tab, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: typ, X: 110, Y: 65, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1}); err != nil {
			t.Fatal(err)
		}
	}
	r.shown(t, `[data-testid="greeting"]`, "Hello, Ada!")
	script := r.generated(t, dir, "greeter.html", "click #name<nil>", "input #nameAda", "click #greet<nil>")
	if !before(script, "await page.locator('#name').fill('Ada');", `// 4. click "Greet me"`, "toContainText('Hello, Ada!')") {
		t.Fatalf("the greeter's steps are not the page's order:\n%s", script)
	}
	if !strings.Contains(script, "await page.getByRole('button', { name: 'Greet me', exact: true }).click();") {
		t.Fatalf("the button is not located by its role and name:\n%s", script)
	}
	if out, err := runPlaywright(dir); err != nil {
		t.Fatalf("the generated test fails: %v\n%s\n%s", err, out, script)
	}
}
