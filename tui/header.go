package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// fit cuts s to w cells, marking the cut.
func fit(s string, w int) string {
	if w <= 0 {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// fitLeft cuts s to w cells from the left, for paths, whose end matters.
func fitLeft(s string, w int) string {
	if lipgloss.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r))+1 > w {
		r = r[1:]
	}
	return "…" + string(r)
}

// sep joins header fields.
const sep = "  ·  "

// headerView renders the three header lines: where the server is and who
// uses it; the extension, its tab and the pilot; how full the buffers are.
// It is a pure function of its arguments, for golden tests.
func headerView(c ConnState, h *Health, p *Pilot, aiNote string, width int) string {
	l1 := styleTitle.Render("GASOLINE") + " " + connView(c)
	if h != nil {
		l1 = styleTitle.Render("GASOLINE "+h.Version) + " " + connView(c)
		clients := "none"
		if len(h.Clients) > 0 {
			clients = strings.Join(h.Clients, ", ")
		}
		l1 += sep + "MCP clients: " + clean(clients)
	}
	l2 := extensionView(h) + sep + "pilot: " + pilotView(p)
	if h != nil && h.Approvals != nil && h.Approvals.Mode == "ask" {
		l2 += styleWarn.Render(" · asks you first")
	}
	if h != nil && h.Page != nil && h.Page.URL != "" {
		l2 += sep + fmt.Sprintf("tab %d: %s", h.Page.TabID, clean(h.Page.URL))
	}
	l3 := styleDim.Render("buffers: " + buffersView(h))
	if h != nil && h.Restored != "" {
		l3 = styleWarn.Render("restored: "+clean(h.Restored)) + sep + l3
	}
	if v := historyView(h); v != "" {
		l3 = styleWarn.Render(v) + sep + l3
	}
	if aiNote != "" {
		l3 = styleWarn.Render(clean(aiNote)) + sep + l3
	}
	if h != nil && h.EventsDropped > 0 {
		l3 += sep + styleWarn.Render(fmt.Sprintf("%d live events dropped for slow viewers", h.EventsDropped))
	}
	return strings.Join([]string{fit(l1, width), fit(l2, width), fit(l3, width)}, "\n")
}

// historyView says what the server took over of its predecessor's
// capture history, and from whom; "" when nothing.
func historyView(h *Health) string {
	if h == nil || h.History == nil || h.History.Restored == 0 {
		return ""
	}
	v := h.History
	s := fmt.Sprintf("history restored: %d entries", v.Restored)
	if v.FromPID != 0 {
		s += fmt.Sprintf(" from pid %d", v.FromPID)
	}
	if v.Previous != "" {
		s += " (" + v.Previous + ")"
	}
	if t, err := time.Parse(time.RFC3339, v.At); err == nil {
		s += " at " + t.Local().Format("15:04:05")
	}
	return clean(s)
}

func connView(c ConnState) string {
	switch c.Phase {
	case Hosting:
		s := c.Addr + " · server in this process"
		if !c.TookOver.IsZero() {
			s += " (took over at " + c.TookOver.Local().Format("15:04:05") + ")"
		}
		return styleOK.Render(s)
	case Attached:
		return styleOK.Render(c.Addr + " · attached to a running server")
	case Reconnecting:
		s := c.Addr + " · RECONNECTING"
		if c.Err != nil {
			s += " (" + clean(c.Err.Error()) + ")"
		}
		return styleErr.Render(s)
	}
	return styleWarn.Render("connecting to " + c.Addr + "…")
}

func extensionView(h *Health) string {
	s := extensionState(h)
	if h != nil && h.Extension.Sockets > 1 {
		// One browser holds one socket: another process may be speaking
		// with the extension's Origin.
		s += " " + styleErr.Render(fmt.Sprintf("⚠ %d extension connections at once", h.Extension.Sockets))
	}
	return s
}

func extensionState(h *Health) string {
	switch {
	case h == nil:
		return "extension: ?"
	case h.Extension.Connected:
		return "extension: " + styleOK.Render("● connected") + " (seen " + seen(h.Extension.LastSeenMS) + ")"
	case h.Extension.LastSeenMS > 0:
		return "extension: " + styleErr.Render("○ not connected") + " (last seen " + seen(h.Extension.LastSeenMS) + ")"
	}
	return "extension: " + styleErr.Render("○ not connected") + " (never seen: load it, see README)"
}

func seen(ms int64) string {
	if ms < 1000 {
		return "just now"
	}
	return ago(time.Duration(ms) * time.Millisecond)
}

// pilotView is the Web Pilot's state: enabled, off, or blocked by you.
func pilotView(p *Pilot) string {
	switch {
	case p == nil:
		return styleDim.Render("unknown")
	case p.BlockedByUser:
		return styleHuman.Render("BLOCKED by you")
	case p.Enabled:
		return styleAI.Render("enabled")
	case p.Source == "stale":
		return "off (extension silent)"
	case p.Source == "never_connected":
		return "off (no extension)"
	}
	return "off"
}

// bufferKinds orders the buffers as the panes do.
var bufferKinds = []struct{ kind, label string }{
	{"logs", "logs"}, {"errors", "errors"}, {"network", "network"}, {"websocket_events", "ws"},
	{"network_bodies", "bodies"}, {"actions", "actions"},
}

func buffersView(h *Health) string {
	if h == nil || len(h.Buffers) == 0 {
		return "?"
	}
	var parts []string
	listed := map[string]bool{}
	for _, b := range bufferKinds {
		if f, ok := h.Buffers[b.kind]; ok {
			parts = append(parts, fmt.Sprintf("%s %d/%d", b.label, f.Count, f.Cap))
			listed[b.kind] = true
		}
	}
	var rest []string
	for k := range h.Buffers {
		if !listed[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		parts = append(parts, fmt.Sprintf("%s %d/%d", k, h.Buffers[k].Count, h.Buffers[k].Cap))
	}
	return strings.Join(parts, " · ")
}

// tabsView renders the tab bar with the active pane's state on the right.
func tabsView(titles []string, active int, status string, width int) string {
	var tabs []string
	for i, t := range titles {
		label := fmt.Sprintf(" %d %s ", i+1, t)
		if i == active {
			tabs = append(tabs, styleTabOn.Render("["+strings.TrimSpace(label)+"]"))
		} else {
			tabs = append(tabs, styleTabOff.Render(label))
		}
	}
	left := strings.Join(tabs, " ")
	right := styleDim.Render(status)
	gap := width - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		return fit(left+" "+right, width)
	}
	return left + strings.Repeat(" ", gap) + right
}
