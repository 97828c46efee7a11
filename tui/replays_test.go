package tui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/server/wire"
)

// A replay under way shows in the header with its step; x stops it from
// any pane, the Overrides pane included, before anything else x does; once
// none runs, x revokes again.
func TestXStopsAReplay(t *testing.T) {
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		calls = append(calls, r.URL.Path+" "+string(b))
		_, _ = io.WriteString(w, `{"stopped":["r1"]}`)
	}))
	defer srv.Close()
	for _, pane := range []string{"1", "5"} {
		calls = nil
		m := sampleModelAt(120, 40)
		m.client = NewClient(srv.URL)
		h := *m.health
		h.Replays = []wire.Replay{{ID: "r1", Agent: "claude-code", Tab: 12, Step: 3, Steps: 7}}
		m.Update(StatusMsg(h))
		if v := plainView(m.View()); !strings.Contains(v, "▶ claude-code replays your flow on tab 12: step 3 of 7 · x stops it") {
			t.Fatalf("the header:\n%s", v)
		}
		m.Update(keyMsg(pane))
		_, cmd := m.Update(keyMsg("x"))
		runAll(m, cmd)
		if !slices.Equal(calls, []string{"/api/replays/stop {}"}) || !strings.Contains(m.note.text, "stopped the replay r1") {
			t.Fatalf("x in pane %s: calls %v, note %q", pane, calls, m.note.text)
		}
		h.Replays = nil
		m.Update(StatusMsg(h))
		_, cmd = m.Update(keyMsg("x"))
		runAll(m, cmd)
		if len(calls) < 2 || calls[1] == calls[0] {
			t.Fatalf("x with no replay under way in pane %s: %v, want it to revoke as before", pane, calls)
		}
	}
}
