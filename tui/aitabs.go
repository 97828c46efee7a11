package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/sessiontabs"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// Several AIs on several tabs: the header lists each AI with
// its tab, t shows the panes one tab at a time, rows of a tab an AI owns
// carry its name, and F frees the shown tab for the other AIs.

// aiTabsPart is the header's list of the AIs and their tabs, longest
// form first; nil when every AI reads the human's tab.
func aiTabsPart(h *Health) part {
	if h == nil || len(h.AITabs) == 0 {
		return nil
	}
	long, short := make([]string, len(h.AITabs)), make([]string, len(h.AITabs))
	for i, b := range h.AITabs {
		name := clean(b.Agent)
		long[i], short[i] = fmt.Sprintf("%s → tab %d", name, b.Tab), fmt.Sprintf("%s→%d", name, b.Tab)
		if b.Owned {
			long[i] += " (own)"
			short[i] += " own"
		}
	}
	return part{"AI tabs: " + strings.Join(long, ", "), "AI: " + strings.Join(short, ", "),
		fmt.Sprintf("AI tabs: %d", len(h.AITabs))}
}

// tabChoices are the tabs t steps through: the AIs' and the human's
// tracked tab, in order.
func tabChoices(h *Health) []int {
	if h == nil {
		return nil
	}
	var tabs []int
	for _, b := range h.AITabs {
		tabs = append(tabs, b.Tab)
	}
	if h.Page != nil && h.Page.TabID != 0 {
		tabs = append(tabs, h.Page.TabID)
	}
	slices.Sort(tabs)
	return slices.Compact(tabs)
}

// nextTab is the tab t shows after shown (0: every tab): the next of
// choices, then every tab again. A shown tab that left the choices goes
// on to the next larger one.
func nextTab(choices []int, shown int) int {
	for _, t := range choices {
		if t > shown {
			return t
		}
	}
	return 0
}

// ownerOf is the agent that owns tab, as of the last status.
func ownerOf(h *Health, tab int) (string, bool) {
	if h == nil || tab == 0 {
		return "", false
	}
	for _, b := range h.AITabs {
		if b.Owned && b.Tab == tab {
			return b.Agent, true
		}
	}
	return "", false
}

// tabOf is the tab a row's entry came from; 0 for rows of no tab.
func tabOf(src any) int {
	switch e := src.(type) {
	case capture.LogEntry:
		return e.TabID
	case capture.NetworkEntry:
		return e.TabID
	case resourceEntry:
		return e.Tab
	case capture.WSEvent:
		return e.TabID
	case capture.Action:
		return e.TabID
	case navMark:
		return e.Tab
	}
	return 0
}

// withAgent marks a row with the AI that owns its tab: `[agent-a] ` first,
// in the AI's colour.
func withAgent(r row, agent string) row {
	mark := "[" + clean(audit.Cap(agent)) + "]"
	r.agent = agent
	r.text = mark + " " + r.text
	r.styled = ai.style().Render(mark) + " " + r.styled
	return r
}

// markAgent is the panes' mark hook: a row of a tab an AI owns, when it
// arrives, carries the AI's name.
func (m *Model) markAgent(r row) row {
	if a, ok := ownerOf(m.health, r.tab); ok {
		return withAgent(r, a)
	}
	return r
}

// cycleTab is t: the panes show the next tab, then every tab again.
func (m *Model) cycleTab() tea.Cmd {
	m.panes.shownTab = nextTab(tabChoices(m.health), m.panes.shownTab)
	for _, p := range m.panes.tabPanes() {
		p.ShowTab(m.panes.shownTab)
	}
	switch a, owned := ownerOf(m.health, m.panes.shownTab); {
	case m.panes.shownTab == 0:
		return notice("the panes show every tab")
	case owned:
		return notice(fmt.Sprintf("the panes show tab %d, %s's own (F frees it, t: next)", m.panes.shownTab, clean(a)))
	}
	return notice(fmt.Sprintf("the panes show tab %d (t: next)", m.panes.shownTab))
}

// freeTab is F: the tab the panes show, an AI's own, is freed: every AI
// may act on it again (its owner still reads it).
func (m *Model) freeTab() tea.Cmd {
	tab := m.panes.shownTab
	if tab == 0 {
		return notice("F frees the tab the panes show: t picks one first")
	}
	a, ok := ownerOf(m.health, tab)
	if !ok {
		return notice(fmt.Sprintf("no AI owns tab %d: nothing to free", tab))
	}
	c := m.client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tabs, err := c.FreeTab(ctx, tab)
		return tabFreed{tabs: tabs, err: err,
			note: fmt.Sprintf("freed tab %d: %s no longer owns it, every AI may act on it", tab, clean(a))}
	}
}

// tabFreed is the server's answer to F: the AIs' tabs after it.
type tabFreed struct {
	tabs []sessiontabs.Binding
	note string
	err  error
}

func (m *Model) applyFreed(msg tabFreed) {
	if msg.err != nil {
		m.setNote("free the tab: "+msg.err.Error(), true)
		return
	}
	if m.health != nil {
		h := *m.health
		h.AITabs = msg.tabs
		m.setHealth(h)
	}
	m.setNote(msg.note, false)
}

// FreeTab frees a tab an AI session owns (the human's call); the answer
// is the AIs' tabs after it.
func (c *Client) FreeTab(ctx context.Context, tab int) ([]sessiontabs.Binding, error) {
	var a wire.AITabs
	err := c.do(ctx, "POST", "/api/tabs/free", wire.TabFree{Tab: tab}, &a)
	return a.Tabs, err
}
