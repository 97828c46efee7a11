package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/server"
)

// The header warns of a second extension connection and shows the events
// the server dropped for slow viewers, read from the server's own status.
func TestHeaderShowsSocketsAndDroppedEvents(t *testing.T) {
	header := func(h server.Health) string {
		b, _ := json.Marshal(h)
		msg, ok := decodeEvent("status", b).(StatusMsg)
		if !ok {
			t.Fatalf("status %s not decoded", b)
		}
		st := Health(msg)
		return plainView(headerView(header{conn: ConnState{Phase: Attached, Addr: "127.0.0.1:7890"}, health: &st}, 300))
	}
	calm := header(server.Health{Service: "gasoline", Extension: server.ExtensionHealth{Connected: true, Sockets: 1}})
	if strings.Contains(calm, "⚠") || strings.Contains(calm, "dropped") {
		t.Fatalf("a calm server has warnings: %q", calm)
	}
	got := header(server.Health{Service: "gasoline", Extension: server.ExtensionHealth{Connected: true, Sockets: 2}, EventsDropped: 1234})
	for _, want := range []string{"● connected", "⚠ 2 extension connections at once", "1234 live events dropped for slow viewers"} {
		if !strings.Contains(got, want) {
			t.Errorf("header lacks %q:\n%s", want, got)
		}
	}
}

// The header says which of the human's decisions the server restored, and
// says nothing when it restored none.
func TestHeaderShowsRestoredDecisions(t *testing.T) {
	view := func(h server.Health) string {
		return plainView(headerView(header{conn: ConnState{Phase: Attached, Addr: "127.0.0.1:7890"}, health: &h}, 300))
	}
	if got := view(server.Health{Service: "gasoline"}); strings.Contains(got, "restored") {
		t.Fatalf("nothing restored, yet: %q", got)
	}
	if got := view(server.Health{Service: "gasoline", Restored: "ws_mode revoked · pilot blocked"}); !strings.Contains(got, "restored: ws_mode revoked · pilot blocked") {
		t.Fatalf("header lacks the restored decisions:\n%s", got)
	}
}
