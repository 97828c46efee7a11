//go:build e2e && attack

// The attacks of issue 41 on the human's decisions, the trust list, the
// event stream and the files on disk, against the real binary, with their
// figures: part of `make attack`.
package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAttackCorruptDecisions: the decisions file spoiled five ways, then a
// start: each time the AI's configure is refused with decisions_unreadable,
// the pilot stays blocked, approval stays ask, and the spoiled file is
// kept aside, whole.
func TestAttackCorruptDecisions(t *testing.T) {
	dir := filepath.Join(testHome, ".gasoline")
	spoils := []struct {
		name  string
		spoil func(path string) error
	}{
		{"random bytes", func(p string) error { return os.WriteFile(p, []byte("\x8f\x00\xff\x13garbage\x01"), 0o600) }},
		{"truncated JSON", func(p string) error { return os.WriteFile(p, []byte(`{"revoked":{"ws_mode":"2026-11-2`), 0o600) }},
		{"null", func(p string) error { return os.WriteFile(p, []byte("null"), 0o600) }},
		{"a directory", func(p string) error { return os.MkdirAll(filepath.Join(p, "x"), 0o700) }},
		{"mode 000", func(p string) error { return os.WriteFile(p, []byte(`{"pilot_blocked":true}`), 0o000) }},
	}
	held := 0
	for _, sp := range spoils {
		port := freePort(t)
		state := filepath.Join(dir, "decisions-"+strconv.Itoa(port)+".json")
		os.MkdirAll(dir, 0o700)
		if err := sp.spoil(state); err != nil {
			t.Fatal(err)
		}
		before, _ := os.Lstat(state)
		rootReads := sp.name == "mode 000" && os.Geteuid() == 0 // root reads any mode: not unreadable
		owner := startOwner(t, port)
		ai := mcpStdio(t, port, "attacker")
		out := aiTries(t, ai, "configure", map[string]any{"action": "capture", "settings": map[string]any{"ws_mode": "messages"}})
		h := health(port)
		pilot := mustJSON(h["pilot"])
		approvals := mustJSON(h["approvals"])
		kept, _ := filepath.Glob(state + ".unreadable-*")
		keptWhole := len(kept) == 1
		if keptWhole {
			k, _ := os.Lstat(kept[0])
			keptWhole = os.SameFile(before, k)
		}
		ok := out["error"] == "decisions_unreadable" && strings.Contains(pilot, `"blocked_by_user":true`) &&
			strings.Contains(approvals, `"mode":"ask"`) && keptWhole
		switch {
		case rootReads:
			t.Logf("mode 000 read by root as written: configure %v, pilot %s", out["error"], pilot)
		case ok:
			held++
		default:
			t.Errorf("%s: configure %v, pilot %s, approvals %s, kept %v (same file %v)", sp.name, out, pilot, approvals, kept, keptWhole)
		}
		t.Logf("%-14s → configure %v; pilot blocked %v; approval ask %v; kept aside whole: %v",
			sp.name, out["error"], strings.Contains(pilot, `"blocked_by_user":true`), strings.Contains(approvals, `"mode":"ask"`), keptWhole)
		owner.Process.Kill()
		owner.Wait()
		for _, k := range append(kept, state) {
			os.RemoveAll(k)
		}
	}
	t.Logf("corrupt decisions: %d starts of %d held the AI until the human looks (uid %d)", held, len(spoils), os.Geteuid())
}

// TestAttackForgedOrigins: 5,000 forged moz-extension origins, then a real
// Firefox install: it is refused until the human answers, and listed.
func TestAttackForgedOrigins(t *testing.T) {
	port := freePort(t)
	startOwner(t, port)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	post := func(origin, ua string) int {
		req, _ := http.NewRequest("POST", base+"/logs", strings.NewReader(`{"entries":[]}`))
		req.Header.Set("Origin", origin)
		req.Header.Set("User-Agent", ua)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	t0 := time.Now()
	for i := range 5000 {
		post(fmt.Sprintf("moz-extension://%08x-0000-4000-8000-000000000000", i), "curl/8")
	}
	flood := time.Since(t0)
	const real = "moz-extension://6f1d3c2a-9b7e-4c55-8a10-3d2f0e4b7c91"
	code := post(real, "Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0")
	h := health(port)
	origins := mustJSON(h["origins"])
	if code != http.StatusForbidden || !strings.Contains(origins, real) {
		t.Fatalf("the real install: %d; waiting: %s", code, origins)
	}
	auditLines := 0
	if b, err := os.ReadFile(filepath.Join(testHome, ".gasoline", "audit.jsonl")); err == nil {
		auditLines = strings.Count(string(b), `"event":"origin_pending"`)
	}
	t.Logf("5,000 forged origins in %v, then a real Firefox install: %d and listed for the human (%d waiting, evicted %v); origin_pending lines in the shared audit: %d",
		flood.Round(time.Millisecond), code, strings.Count(origins, `"origin"`), h["origins"].(map[string]any)["evicted"], auditLines)
}

// TestAttackStreamSlots: 17 event-stream readers from a local process,
// then the dashboard with its token: it gets its stream.
func TestAttackStreamSlots(t *testing.T) {
	port := freePort(t)
	startOwner(t, port)
	for range 17 {
		c := stalledReader(t, port)
		defer c.Close()
	}
	tok, err := os.ReadFile(filepath.Join(testHome, ".gasoline", "human-"+strconv.Itoa(port)+".token"))
	if err != nil {
		t.Fatal(err)
	}
	open := func(token string) int {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+strconv.Itoa(port)+"/events/stream?backlog=0", nil)
		if token != "" {
			req.Header.Set("X-Gasoline-Token", token)
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	var anon, human int
	waitFor(t, 20*time.Second, "the 17 readers to hold every anonymous stream", func() bool {
		anon = open("")
		return anon == http.StatusTooManyRequests
	})
	human = open(strings.TrimSpace(string(tok)))
	if human != http.StatusOK {
		t.Fatalf("the dashboard's stream: %d", human)
	}
	t.Logf("17 local stream readers: an 18th without the token gets %d, the dashboard with it %d", anon, human)
}

// TestAttackScreenshots: a screenshot without the extension's Origin is
// refused; one stamped year 9999 is pruned like any other; files are 0600
// in a 0700 folder.
func TestAttackScreenshots(t *testing.T) {
	port := freePort(t)
	startOwner(t, port)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	png := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), "pixels"...))
	upload := func(origin string, ts int64, tab int) (int, string) {
		req, _ := http.NewRequest("POST", base+"/screenshots", strings.NewReader(fmt.Sprintf(`{"tab":%d,"ts":%d,"image":"%s"}`, tab, ts, png)))
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		f, _ := out["file"].(string)
		return resp.StatusCode, f
	}
	const ext = "chrome-extension://nfadohinhmepekandhojgchganbcflen"
	noOrigin, _ := upload("", 1700000000000, 1)
	code, future := upload(ext, 253402300799000, 9999) // 9999-12-31T23:59:59Z
	if noOrigin != http.StatusForbidden || code != http.StatusOK {
		t.Fatalf("without Origin %d, from the extension %d", noOrigin, code)
	}
	for i := range 50 {
		upload(ext, time.Now().UnixMilli()+int64(i), 2)
	}
	_, err := os.Stat(future)
	pruned := os.IsNotExist(err)
	if !pruned {
		t.Error("the year-9999 screenshot was never pruned")
	}
	dir := filepath.Join(testHome, ".gasoline")
	shots, _ := filepath.Glob(filepath.Join(dir, "screenshots", "*.png"))
	loose := 0
	for _, s := range shots {
		if fi, err := os.Stat(s); err == nil && fi.Mode().Perm() != 0o600 {
			loose++
		}
	}
	di, _ := os.Stat(dir)
	if loose > 0 || di.Mode().Perm() != 0o700 {
		t.Errorf("%d screenshots not 0600; %s is %v", loose, dir, di.Mode().Perm())
	}
	t.Logf("POST /screenshots without Origin: %d; year-9999 screenshot pruned after 50 newer: %v; %d screenshots, %d not 0600; ~/.gasoline %#o",
		noOrigin, pruned, len(shots), loose, di.Mode().Perm())
}
