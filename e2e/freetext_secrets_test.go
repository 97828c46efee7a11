//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gasoline-dev/gasoline/features/wait"
)

// freeTextSecrets are made-up secrets in the formats of issue 40's table,
// built from parts so that no file holds a whole key.
func freeTextSecrets() map[string]string {
	const alnum = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b64 := base64.RawURLEncoding.EncodeToString
	return map[string]string{
		"jwt": b64([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + b64([]byte(`{"sub":"fake-user","note":"not a real token"}`)) +
			"." + b64([]byte("fake-signature-not-real")),
		"stripe":   "sk_" + "live_" + alnum[4:28],
		"github":   "gh" + "p_" + alnum[10:46],
		"aws":      "AK" + "IA" + "QWERTYUIOPASDFGH",
		"slack":    "xo" + "xb-" + "1234567890-2345678901-" + alnum[20:44],
		"bearer":   alnum[22:62],
		"password": "Fake-pass-" + alnum[30:40],
		"xml":      alnum[40:62],
		"ws":       "Sock-pass-" + alnum[5:15],
	}
}

// The page writes the nine secrets of issue 40's table where pages write
// them. What the AI observes, what the dashboard's event stream carries and
// the history on disk hold none of them; each message keeps its own words
// and says which kind of key it held; the security audit reports each.
func TestSecretsInFreeTextNeverReachTheAI(t *testing.T) {
	r := newRig(t, "freetext-agent", map[string]any{"log_level": "all", "ws_mode": "messages", "network_bodies": true})
	stream := readEventStream(t, r.port)
	page := r.site + "/other.html"
	if err := chromedp.Do(r.b.ctx, chromedp.Navigate(page)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the server to track the page", func() bool {
		p, _ := health(r.port)["page"].(map[string]any)
		return p != nil && p["url"] == page
	})
	secrets := freeTextSecrets()
	js, _ := json.Marshal(secrets)
	if _, err := chromedp.Run(r.b.ctx, chromedp.Evaluate[bool](`(() => {
		const S = `+string(js)+`;
		console.log('signed in, token:', S.jwt);
		console.log('stripe client ready with ' + S.stripe);
		console.warn('deploy using ' + S.github);
		console.error('s3 upload failed for key ' + S.aws);
		console.log('slack', {webhookToken: S.slack});
		console.error(new Error('upload failed Authorization: Bearer ' + S.bearer));
		console.log('login {"user":"ann","password":"' + S.password + '"}');
		fetch('/api/echo', {method: 'POST', headers: {'Content-Type': 'application/xml'},
			body: '<auth><user>ann</user><token>' + S.xml + '</token></auth>'});
		const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
		ws.onopen = () => ws.send('password=' + S.ws);
		return true;
	})()`)); err != nil {
		t.Fatal(err)
	}

	// Each message in its own words, the secret's kind kept.
	words := []string{
		"signed in, token:", "eyJhbG…[redacted]",
		"stripe client ready with sk_live_[redacted]",
		"deploy using ghp_[redacted]",
		"s3 upload failed for key AKIA[redacted]",
		"slack", "xoxb-[redacted]",
		"upload failed Authorization: Bearer [redacted]",
		`login {"user":"ann","password":"[redacted]"}`,
		"<auth><user>[redacted]</user><token>[redacted]</token></auth>", // inside a secret element, as inside a secret JSON object
		"password=[redacted]",
	}
	results := map[string]map[string]any{}
	var seen string
	var missing []string
	if !wait.Until(60*time.Second, func() bool {
		for _, what := range []string{"logs", "errors", "network", "network_bodies", "websocket_events"} {
			results[what] = observe(t, r.ai, map[string]any{"what": what, "limit": 100})
		}
		results["page"] = observe(t, r.ai, map[string]any{"what": "page"})
		seen = stringsIn(results)
		missing = missing[:0]
		for _, w := range words {
			if !strings.Contains(seen, w) {
				missing = append(missing, w)
			}
		}
		return len(missing) == 0
	}) {
		t.Fatalf("observe lacks %q:\n%s", missing, seen)
	}
	for name, v := range secrets {
		if strings.Contains(seen, v) || strings.Contains(mustJSON(results), v) {
			t.Errorf("observe holds the %s secret %q: %s", name, v, mustJSON(results))
		}
	}

	// The dashboard's stream: it carried the entries, redacted.
	waitFor(t, 30*time.Second, "the entries in the dashboard's stream", func() bool {
		s := stream()
		return strings.Contains(s, "ghp_[redacted]") && strings.Contains(s, "password=[redacted]") && strings.Contains(s, "upload failed Authorization: Bearer [redacted]")
	})
	// The history on disk.
	var disk strings.Builder
	dir := filepath.Join(testHome, ".gasoline", "history-"+strconv.Itoa(r.port))
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			disk.Write(b)
		}
		return nil
	})
	if !strings.Contains(disk.String(), "sk_live_[redacted]") {
		t.Errorf("the history in %s does not hold the entries (%d bytes)", dir, disk.Len())
	}
	for name, v := range secrets {
		if strings.Contains(stream(), v) {
			t.Errorf("the dashboard's stream carried the %s secret", name)
		}
		if strings.Contains(disk.String(), v) {
			t.Errorf("the history on disk holds the %s secret", name)
		}
	}

	// The security audit reports each, by its rule, with the mark as evidence.
	rep := analyze(t, r.ai, map[string]any{"target": "security", "severity_min": "info"})
	want := []struct{ rule, in, evidence string }{
		{"jwt_in_log", "console", "eyJhbG…[redacted]"},
		{"stripe_key", "console", "sk_live_[redacted]"},
		{"github_token", "console", "ghp_[redacted]"},
		{"aws_access_key", "console", "AKIA[redacted]"},
		{"slack_token", "console", "xoxb-[redacted]"},
		{"bearer_in_log", "console", "Bearer [redacted]"},
		{"password_in_log", "console", "[redacted]"},
		{"secret_in_body", "request_body", "[redacted]"},
		{"secret_in_body", "websocket", "[redacted]"},
	}
	findings, _ := rep["findings"].([]any)
	for _, w := range want {
		ok := false
		for _, f := range findings {
			m := f.(map[string]any)
			ok = ok || m["rule"] == w.rule && m["in"] == w.in && m["evidence"] == w.evidence
		}
		if !ok {
			t.Errorf("the audit does not report %s in %s with evidence %s: %s", w.rule, w.in, w.evidence, mustJSON(rep))
		}
	}
	text := mustJSON(rep)
	for name, v := range secrets {
		if strings.Contains(text, v) {
			t.Errorf("the audit shows the %s secret: %s", name, text)
		}
	}
	if strings.Contains(text, "[r...") {
		t.Errorf("the audit cut a mark down: %s", text)
	}
}

// stringsIn joins every string in v, unescaped, so that text with < or &
// is found as the page wrote it.
func stringsIn(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case map[string]map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// readEventStream reads the dashboard's event stream (GET /events/stream,
// what the TUI reads) until the test ends; the returned func gives what it
// has read so far.
func readEventStream(t *testing.T, port int) func() string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var got strings.Builder
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:"+strconv.Itoa(port)+"/events/stream?backlog=500", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				select { // the server is not up yet: try again shortly, unless the test ended
				case <-ctx.Done():
				case <-time.After(200 * time.Millisecond):
				}
				continue
			}
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 4<<20)
			for sc.Scan() {
				mu.Lock()
				got.WriteString(sc.Text())
				got.WriteByte('\n')
				mu.Unlock()
			}
			resp.Body.Close()
		}
	}()
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return got.String()
	}
}
