package tui

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/sessiontabs"
)

// sampleAITabs is two AIs on tabs of their own beside the human's 412:
// the status that lists them, then what their tabs did.
func sampleAITabs() []tea.Msg {
	h := *sampleModel().health
	h.AITabs = []sessiontabs.Binding{{Agent: "claude-code", Tab: 12, Owned: true}, {Agent: "cursor", Tab: 14, Owned: true}}
	return []tea.Msg{StatusMsg(h), EntriesMsg{
		Logs: []capture.LogEntry{
			{TS: at(-0.7), Level: "log", Message: "admin dashboard mounted", TabID: 12},
			{TS: at(-0.6), Level: "error", Message: "GET /api/orders 403 (Forbidden)", TabID: 14},
		},
		Actions: []capture.Action{
			{TS: at(-0.5), Type: "click", Selector: "#orders", Text: "Orders", Source: "ai", TabID: 12},
			{TS: at(-0.4), Type: "click", Selector: "#login", Text: "Log in", Source: "ai", TabID: 14},
		},
	}}
}

// shownTabs are the tabs of the rows pane p shows.
func shownTabs(p *streamPane) []int {
	p.dirty = true
	p.sync()
	var tabs []int
	for _, r := range p.shown {
		tabs = append(tabs, r.tab)
	}
	return tabs
}

func withAITabs() *Model {
	m := sampleModelAt(120, 40)
	for _, msg := range sampleAITabs() {
		m.Update(msg)
	}
	return m
}

// t steps the panes through the AIs' tabs and the human's, then every
// tab again; a row of another tab that comes meanwhile waits unseen.
func TestTabKeyCyclesThePanes(t *testing.T) {
	m := withAITabs()
	all := len(shownTabs(m.panes.console))
	for _, want := range []int{12, 14, 412, 0} {
		m.Update(keyMsg("t"))
		if m.panes.shownTab != want {
			t.Fatalf("shows tab %d, want %d", m.panes.shownTab, want)
		}
		got := shownTabs(m.panes.console)
		for _, tab := range got {
			if want != 0 && tab != want {
				t.Fatalf("tab %d shows a row of tab %d", want, tab)
			}
		}
		if want != 0 && (len(got) == 0 || !strings.Contains(m.View(), fmt.Sprintf("tab %d only (t: next)", want))) {
			t.Fatalf("tab %d: rows %v, or the pane does not say it", want, got)
		}
		if want == 0 && len(got) != all {
			t.Fatalf("every tab again: %d rows, want %d", len(got), all)
		}
	}
	m.Update(keyMsg("t"))
	m.Update(EntriesMsg{Logs: []capture.LogEntry{{TS: at(0), Level: "log", Message: "on 14", TabID: 14}}})
	if got := shownTabs(m.panes.console); slices.Contains(got, 14) {
		t.Fatalf("tab 12 shows %v", got)
	}
	if got := shownTabs(m.panes.actions); !slices.Equal(got, []int{12}) {
		t.Fatalf("the Actions pane on tab 12: %v", got)
	}
}

// Rows of a tab an AI owns carry its name, in every layout; the human's
// tab's rows do not.
func TestRowsOfAnAIsTabCarryItsName(t *testing.T) {
	m := withAITabs()
	m.Update(EntriesMsg{Network: []capture.NetworkEntry{
		{TS: at(0), Method: "GET", URL: "http://localhost:3000/api/orders", Status: 403, TabID: 14},
		{TS: at(0), Method: "GET", URL: "http://localhost:3000/api/cart", Status: 200, TabID: 412},
	}})
	m.Update(keyMsg("4"))
	view := m.View()
	if !strings.Contains(view, `[claude-code] 15:32:09.500 AI ▶ click #orders "Orders"`) || !strings.Contains(view, `[cursor] 15:32:09.600 AI ▶ click`) {
		t.Fatalf("the Actions pane:\n%s", view)
	}
	for _, width := range []int{200, 80} {
		m.Update(tea.WindowSizeMsg{Width: width, Height: 30})
		m.Update(keyMsg("2"))
		view = plainView(m.View())
		if !strings.Contains(view, "[cursor] ") || strings.Count(view, "[cursor]") != 1 || strings.Contains(view, "] 15:32:10.000 GET   200") {
			t.Fatalf("the Network pane at %d:\n%s", width, view)
		}
	}
}

// F frees the tab t shows when an AI owns it, through the human's call;
// the header then lists the tab as no one's own. Without a tab shown, or
// on a tab no AI owns, F calls nothing and says why.
func TestFreeKeyFreesTheShownTab(t *testing.T) {
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		calls = append(calls, r.URL.Path+" "+string(b))
		_, _ = io.WriteString(w, `{"ai_tabs":[{"agent":"claude-code","tab":12},{"agent":"cursor","tab":14,"owned":true}]}`)
	}))
	defer srv.Close()
	m := withAITabs()
	m.client = NewClient(srv.URL)
	_, cmd := m.Update(keyMsg("F"))
	runAll(m, cmd)
	if len(calls) != 0 || !strings.Contains(m.note.text, "t picks one first") {
		t.Fatalf("F on every tab: calls %v, note %q", calls, m.note.text)
	}
	m.Update(keyMsg("t"))
	_, cmd = m.Update(keyMsg("F"))
	runAll(m, cmd)
	if !slices.Equal(calls, []string{`/api/tabs/free {"tab":12}`}) || !strings.Contains(m.note.text, "freed tab 12") {
		t.Fatalf("calls %v, note %q", calls, m.note.text)
	}
	if v := plainView(m.View()); !strings.Contains(v, "claude-code → tab 12, cursor → tab 14 (own)") && !strings.Contains(v, "claude-code→12, cursor→14 own") {
		t.Fatalf("the header after F:\n%s", v)
	}
	_, cmd = m.Update(keyMsg("F"))
	runAll(m, cmd)
	if len(calls) != 1 || !strings.Contains(m.note.text, "no AI owns tab 12") {
		t.Fatalf("F on a freed tab: calls %v, note %q", calls, m.note.text)
	}
}

func TestNextTab(t *testing.T) {
	for _, c := range []struct{ shown, want int }{{0, 12}, {12, 14}, {14, 0}, {13, 14}, {99, 0}} {
		if got := nextTab([]int{12, 14}, c.shown); got != c.want {
			t.Errorf("after %d: %d, want %d", c.shown, got, c.want)
		}
	}
	if got := nextTab(nil, 0); got != 0 {
		t.Errorf("no tabs: %d", got)
	}
}

// The Audit pane says which tab the human freed, and from whom.
func TestAuditRowOfAFreedTab(t *testing.T) {
	e := audit.Event{Event: "tab_freed", Tab: 12, From: "agent-a", Source: "human", Agent: "human"}
	if got, want := auditWhat(e), "freed tab 12: agent-a no longer owns it"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
