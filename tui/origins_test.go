package tui

import (
	"strings"
	"testing"

	"github.com/gasoline-dev/gasoline/features/origins"
)

// An extension origin that waits covers every pane with its prompt until
// the human answers; y is taken by the prompt; the approval overlay still
// comes first; a status without waiting origins lifts the prompt.
func TestOriginPrompt(t *testing.T) {
	const fx = "moz-extension://6f1d3c2a-9b7e-4c55-8a10-3d2f0e4b7c91"
	m := sampleModel()
	m.Update(OriginsMsg{Pending: []origins.Request{{Origin: fx, Browser: "Firefox 153", At: sampleNow}}})
	got := plainView(m.View())
	if !strings.Contains(got, "ACCEPT EXTENSION? "+fx) || !strings.Contains(got, "browser: Firefox 153") || !strings.Contains(got, "y accept · n refuse") {
		t.Fatalf("no prompt:\n%s", got)
	}
	if n := strings.Count(got, "\n") + 1; n != 30 {
		t.Errorf("%d lines, want 30", n)
	}
	if strings.Contains(got, "Router ready") {
		t.Error("the pane shows through the prompt")
	}
	if cmd, ok := m.origins.Update(keyMsg("y")); !ok || cmd == nil {
		t.Error("y is not the prompt's")
	}
	if _, ok := m.origins.Update(keyMsg("x")); ok {
		t.Error("x taken by the prompt")
	}
	m.Update(sampleApproval())
	if got := plainView(m.View()); !strings.Contains(got, "APPROVE?") || strings.Contains(got, "ACCEPT EXTENSION?") {
		t.Errorf("the waiting pilot action does not come first:\n%s", got)
	}
	m.Update(ApprovalsMsg{Mode: "ask"})
	m.Update(originAnswered{view: origins.View{}, note: "accepted: " + fx})
	if got := plainView(m.View()); strings.Contains(got, "ACCEPT EXTENSION?") || !strings.Contains(got, "accepted: "+fx) {
		t.Errorf("after the answer:\n%s", got)
	}
}

// Issue 41: with forged origins waiting, the prompt asks about the one
// heard from last (the server lists them least recently heard first).
func TestOriginPromptShowsTheNewest(t *testing.T) {
	const fx = "moz-extension://6f1d3c2a-9b7e-4c55-8a10-3d2f0e4b7c91"
	m := sampleModel()
	m.Update(OriginsMsg{Pending: []origins.Request{
		{Origin: "moz-extension://00000000-0000-0000-0000-000000000001", Browser: "curl/8", At: sampleNow},
		{Origin: fx, Browser: "Firefox 153", At: sampleNow}}})
	if got := plainView(m.View()); !strings.Contains(got, "ACCEPT EXTENSION? "+fx) || !strings.Contains(got, "2 origins waiting") {
		t.Fatalf("the prompt:\n%s", got)
	}
}
