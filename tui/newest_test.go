package tui

import (
	"strings"
	"testing"
)

// A new AI override shows in the header whatever pane is open, x from any
// pane revokes the newest one, and the Overrides pane opens on the newest
// override still held.
func TestNewestOverrideFromAnyPane(t *testing.T) {
	s, addr := startServer(t)
	d := attach(t, addr, nil)
	d.press("2") // the Network pane: far from the veto
	aiSet(t, s, map[string]any{"log_level": "all"})
	aiSet(t, s, map[string]any{"ws_mode": "messages"})
	header := func() string { return strings.Join(strings.Split(d.screen(), "\n")[:headerLines], "\n") }
	d.await("the newest override in the header", func() bool {
		return strings.Contains(header(), "AI claude-code set ws_mode → messages · x revoke")
	})

	d.press("x")
	d.await("ws_mode revoked from the Network pane", func() bool { return setting(t, s, "ws_mode").Revoked })
	if v := setting(t, s, "log_level"); v.Revoked || v.Value != "all" {
		t.Fatalf("x revoked more than the newest: %+v", v)
	}
	d.await("the header to name the next override", func() bool {
		return strings.Contains(header(), "AI claude-code set log_level → all · x revoke")
	})

	d.press("5")
	if sel, _ := d.m.panes.overrides.selected(); sel.Name != "log_level" {
		t.Fatalf("the Overrides pane opened on %q, want the newest override log_level", sel.Name)
	}
	d.press("x")
	d.await("log_level revoked", func() bool { return setting(t, s, "log_level").Revoked })
	d.await("a quiet header", func() bool { return !strings.Contains(header(), "x revoke") })
	d.press("1")
	d.press("x")
	d.await("the human told there is nothing to revoke", func() bool {
		return strings.Contains(d.screen(), "nothing to revoke: the AI holds no override")
	})
}
