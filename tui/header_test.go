package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/server"
	"github.com/gasoline-dev/gasoline/server/wire"
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

// The header says what was lost on the way from the pages, read from the
// server's status; nothing while nothing was.
func TestHeaderShowsLosses(t *testing.T) {
	view := func(h server.Health, width int) string {
		b, _ := json.Marshal(h)
		msg, ok := decodeEvent("status", b).(StatusMsg)
		if !ok {
			t.Fatalf("status %s not decoded", b)
		}
		st := Health(msg)
		return plainView(headerView(header{conn: ConnState{Phase: Attached, Addr: "127.0.0.1:7890"}, health: &st}, width))
	}
	if got := view(server.Health{Service: "gasoline"}, 300); strings.Contains(got, "lost") {
		t.Fatalf("nothing lost, yet: %q", got)
	}
	h := server.Health{Service: "gasoline", Lost: &wire.Lost{Total: 12, Recent: []string{"12 console entries lost on tab 5 between 21:04:03Z and 21:04:04Z"}}}
	if got := view(h, 300); !strings.Contains(got, "12 lost · last: 12 console entries lost on tab 5 between 21:04:03Z and 21:04:04Z") {
		t.Fatalf("a wide header lacks the loss:\n%s", got)
	}
	if got := view(h, 80); !strings.Contains(got, "12 lost") {
		t.Fatalf("an 80-column header lacks the loss:\n%s", got)
	}
}
