//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The page benchmark's peer: another extension (issue 57: the previous
// release's, 0.7.9) measured with the same workload in the same run, as a
// third Chromium each round beside ours and the control.
//
// PAGE_BENCH_PEER is its unpacked extension's directory; PAGE_BENCH_PEER_SERVER
// its server's binary, started as 0.7.9 starts its server alone (--daemon
// --port P) with its state in a temporary directory. 0.7.9's extension
// talks to http://localhost:7890 by default: the benchmark's copy of it is
// pointed at P instead (each .js file that names the default address), and
// it captures only in the tab the user tracks (its popup's "Track this
// tab", the trackedTabId in chrome.storage.local), so the benchmark tracks
// the tab its workload runs in (PAGE_BENCH_PEER_TRACK=0: it does not, and
// the peer runs what 0.7.9 runs in a page no one tracks).
// PAGE_BENCH_PEER_PAIRS sets its workload pairs a round, if not
// PAGE_BENCH_PAIRS: tracked, 0.7.9 takes ~30 s a workload.

// peerDefaultServer is 0.7.9's default server address.
const peerDefaultServer = "localhost:7890"

// peerBrowser is the peer's Chromium of a round, or nil without PAGE_BENCH_PEER.
func peerBrowser(b *testing.B, wrapped, bare *pageTab) *pageBrowser {
	src := os.Getenv("PAGE_BENCH_PEER")
	if src == "" {
		return nil
	}
	p := &pageBrowser{ext: copyPeer(b, src), wrapped: wrapped, bare: bare, pairs: envCount("PAGE_BENCH_PEER_PAIRS", 0)}
	if os.Getenv("PAGE_BENCH_PEER_TRACK") != "0" {
		p.prepare, p.inPage, wrapped.injected = trackTab, true, true
	}
	bin := os.Getenv("PAGE_BENCH_PEER_SERVER")
	if bin == "" {
		return p
	}
	s := startPeerServer(b, p.ext, bin)
	p.server, p.connected = s.pid, s.connected
	return p
}

// copyPeer copies the peer's unpacked extension in src to a temporary
// directory, the one the benchmark loads (and points at its server).
func copyPeer(b *testing.B, src string) string {
	dir := b.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		b.Fatalf("peer: copy %s: %v", src, err)
	}
	return dir
}

// peerServer is the peer's server, started by startPeerServer.
type peerServer struct {
	bin   string // its binary
	port  int
	pid   int
	state string // its HOME, with its state directory and log in it
}

// startPeerServer starts the peer's server bin on a free port, as 0.7.9
// starts its server alone, with its state in a temporary directory, and
// points the copy of its extension in ext at it.
func startPeerServer(b *testing.B, ext, bin string) *peerServer {
	port := freePort(b)
	err := filepath.WalkDir(ext, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".js") {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(text, []byte(peerDefaultServer)) {
			return err
		}
		return os.WriteFile(path, bytes.ReplaceAll(text, []byte(peerDefaultServer), []byte("localhost:"+strconv.Itoa(port))), 0o644)
	})
	if err != nil {
		b.Fatalf("peer: point it at its server: %v", err)
	}
	s := &peerServer{bin: bin, port: port, state: b.TempDir()}
	srv := exec.Command(bin, "--daemon", "--port", strconv.Itoa(port), "--state-dir", s.stateDir(), "--log-file", filepath.Join(s.state, "log"))
	srv.Env = s.env()
	if err := srv.Start(); err != nil {
		b.Fatalf("peer: start its server: %v", err)
	}
	b.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	waitFor(b, 10*time.Second, "the peer's server", func() bool { return health(port) != nil })
	s.pid = srv.Process.Pid
	return s
}

func (s *peerServer) stateDir() string { return filepath.Join(s.state, "state") }

// env is the environment of the peer's processes: the benchmark's, with
// the peer's own HOME.
func (s *peerServer) env() []string { return append(os.Environ(), "HOME="+s.state) }

// connected reports whether the peer's extension has reached its server.
func (s *peerServer) connected() bool {
	c, _ := health(s.port)["capture"].(map[string]any)
	ok, _ := c["extension_connected"].(bool)
	return ok
}

// trackTab makes the peer capture in the Chromium's one tab (the default
// browser context's; the off-the-record tab is not the extension's), as
// its popup's "Track this tab" does, through its service worker.
func trackTab(b *testing.B, ctx context.Context) {
	var sw context.Context
	var cancel func()
	defer func() {
		if cancel != nil {
			cancel()
		}
	}()
	waitFor(b, 15*time.Second, "the peer's service worker", func() bool {
		targets, err := chromedp.Targets(ctx)
		if err != nil {
			return false
		}
		for _, t := range targets {
			if t.Type == "service_worker" && strings.HasPrefix(t.URL, "chrome-extension://") {
				sw, cancel = chromedp.NewContext(ctx, chromedp.WithTargetID(t.TargetID), chromedp.WithDetachOnCancel())
				return true
			}
		}
		return false
	})
	n, err := chromedp.Run(sw, chromedp.Evaluate[int](`chrome.tabs.query({}).then(async ts => {
		if (ts.length === 1) await chrome.storage.local.set({trackedTabId: ts[0].id, trackedTabUrl: ts[0].url, trackedTabTitle: ''});
		return ts.length;
	})`, chromedp.EvalAwaitPromise))
	if err != nil || n != 1 {
		b.Fatalf("peer: track the tab: %d tabs, %v", n, err)
	}
}
