package server

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/capture"
)

// The relay remembers the tab its session was left with by the calls that
// succeeded, and names its client, for the next server.
func TestRelayRemembersTheSessionsTab(t *testing.T) {
	r := &relay{inflight: map[string]pending{}}
	r.noteOut([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"agent-a","version":"1.0"}}}`))
	note := func(req, resp string) {
		c, _ := peek([]byte(req))
		a, _ := peek([]byte(resp))
		r.noteTab(c, a, []byte(resp))
	}
	call := func(name, args, result string) {
		note(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":`+args+`}}`,
			`{"jsonrpc":"2.0","id":1,"result":`+result+`}`)
	}
	ok := func(text string) string { return `{"content":[{"type":"text","text":` + quote(text) + `}]}` }
	call("interact", `{"action":"new_tab","url":"http://x/"}`, ok(`{"tab_id":12,"url":"http://x/"}`))
	if c := r.claim(); c != (tabClaim{Tab: 12, Owned: true, Agent: "agent-a"}) {
		t.Fatalf("after new_tab: %+v", c)
	}
	if q := r.claim().query(); q != "?agent=agent-a&owned=1&tab=12" {
		t.Fatalf("query %q", q)
	}
	if c := claimOf(mustQuery(t, r.claim().query())); c != r.claim() {
		t.Fatalf("read back %+v", c)
	}
	call("interact", `{"action":"close_tab","tab_id":9}`, ok(`{"tab_id":9}`))
	call("configure", `{"action":"track","tab_id":7}`, `{"isError":true,"content":[{"type":"text","text":"{\"error\":\"invalid_param\"}"}]}`)
	if c := r.claim(); c.Tab != 12 || !c.Owned {
		t.Fatalf("another tab closed, a refused call: %+v", c)
	}
	call("interact", `{"action":"close_tab"}`, ok(`{"tab_id":12}`))
	if c := r.claim(); c.Tab != 0 || c.query() != "" {
		t.Fatalf("after close_tab: %+v", c)
	}
	call("configure", `{"action":"track","tab_id":7}`, ok(`{"tab":7}`))
	if c := r.claim(); c != (tabClaim{Tab: 7, Agent: "agent-a"}) {
		t.Fatalf("after track: %+v", c)
	}
	// A client of the newer protocol names itself in each call.
	note(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"agent-b"}},"name":"interact","arguments":{"action":"new_tab"}}}`,
		`{"jsonrpc":"2.0","id":2,"result":`+ok(`{"tab_id":14}`)+`}`)
	if c := r.claim(); c != (tabClaim{Tab: 14, Owned: true, Agent: "agent-b"}) {
		t.Fatalf("a newer client's new_tab: %+v", c)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func mustQuery(t *testing.T, q string) url.Values {
	t.Helper()
	v, err := url.ParseQuery(strings.TrimPrefix(q, "?"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A session brought back by its relay owns its tab again, but never the
// human's tracked tab, whatever its claim says.
func TestResumedSessionNeverOwnsTheHumansTab(t *testing.T) {
	s, _ := startServer(t)
	s.store.SetPage(capture.Page{URL: "http://app.test/", TabID: 7})
	for _, c := range []struct {
		tab   int
		owned bool
	}{{12, true}, {7, false}} {
		ctx, cancel := context.WithCancel(context.Background())
		_, end := memPipe(make(chan struct{}))
		served := make(chan struct{})
		go func() {
			_ = s.serveSession(ctx, end, tabClaim{Tab: c.tab, Owned: true, Agent: "agent-a"})
			close(served)
		}()
		eventually(t, "the session bound", func() bool {
			_, owned := s.tabs.Owner(c.tab)
			for _, b := range s.tabs.List() {
				if b.Tab == c.tab {
					return owned == c.owned && b.Owned == c.owned
				}
			}
			return false
		})
		cancel()
		<-served
	}
}
