package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/doctor"
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

// header is what the three header lines show.
type header struct {
	conn   ConnState
	health *Health
	pilot  *Pilot
	// aiNote is the newest AI override and the key that takes it back.
	aiNote string
	// problems are the doctor's failures and warnings, most severe first.
	problems []doctor.Check
	// notice is a warning that lasts while its cause does (the dashboard
	// passing events over under load); "" when there is none.
	notice part
	// segments are the fields other features add (segments.go).
	segments []segment
}

// segment is one field a feature adds to the header: its forms, longest
// first, on line 1, 2 or 3. On a narrow terminal segments give up room,
// and at last go, before the header's own fields.
type segment struct {
	line  int
	forms part
	// late: the segment is the answer to something the human just did
	// (what they sent the AI), so it gives way after the line's own fields.
	late bool
}

// headerView renders the three header lines: where the server is and who
// uses it; the extension, its tab and the pilot; what is wrong and how
// full the buffers are. On a narrow terminal each line gives up its least
// useful words first (squeeze): the tracked tab, the MCP clients and the
// AI's override stay. It is a pure function, for golden tests.
func headerView(hd header, width int) string {
	c, h := hd.conn, hd.health
	title := "GASOLINE"
	clients := part{}
	if h != nil {
		title = "GASOLINE " + h.Version
		names := "none"
		if len(h.Clients) > 0 {
			names = strings.Join(h.Clients, ", ")
		}
		clients = part{"MCP clients: " + clean(names), "MCP: " + clean(names)}
	}
	where := part{
		styleTitle.Render(title) + " " + connView(c, false),
		styleTitle.Render(title) + " " + connView(c, true),
		styleTitle.Render("GASOLINE") + " " + connView(c, true),
	}
	// The AIs' tabs give up room after the clients and the server's
	// address: which AI acts on which tab is why they are there.
	p1, o1 := withSegments(hd.segments, 1, []part{where, clients, aiTabsPart(h)}, []int{1, 0, 0, 2, 2})
	l1 := squeeze(width, sep, p1, o1)
	pilot := part{"pilot: " + pilotView(hd.pilot, h)}
	if hd.pilot != nil {
		pilot = append(pilot, "pilot: "+pilotShort(hd.pilot))
	}
	if h != nil && h.Approvals != nil && h.Approvals.Mode == "ask" {
		for i := range pilot {
			pilot[i] += styleWarn.Render(" · asks you first")
		}
	}
	tab := part{}
	if h != nil && h.Page != nil && h.Page.URL != "" {
		u := clean(h.Page.URL)
		bare := u
		if _, rest, ok := strings.Cut(u, "://"); ok {
			bare = rest
		}
		tab = part{fmt.Sprintf("tab %d: %s", h.Page.TabID, u), fmt.Sprintf("tab %d: %s", h.Page.TabID, bare)}
	}
	ext := part{extensionView(h, 0), extensionView(h, 1), extensionView(h, 2), extensionTiny(h)}
	// The extension's state outlasts the pilot's reason and the tab's
	// scheme: "connected" goes only after both.
	p2, o2 := withSegments(hd.segments, 2, []part{ext, pilot, tab}, []int{0, 1, 2, 0, 0})
	l2 := squeeze(width, sep, p2, o2)
	var p3 []part
	if r := replayPart(h); r != nil {
		p3 = append(p3, r)
	}
	if d := decisionsPart(h); d != nil {
		p3 = append(p3, d)
	}
	if len(hd.notice) > 0 {
		p3 = append(p3, hd.notice)
	}
	if hd.aiNote != "" {
		p3 = append(p3, part{styleWarn.Render(clean(hd.aiNote))})
	}
	if len(hd.problems) > 0 {
		p3 = append(p3, part{problemsView(hd.problems, false), problemsView(hd.problems, true), problemsCount(hd.problems)})
	}
	if h != nil && h.Restored != "" {
		p3 = append(p3, part{styleWarn.Render("restored: " + clean(h.Restored)), styleWarn.Render("restored")})
	}
	if v := historyView(h); v != "" {
		p3 = append(p3, part{styleWarn.Render(v), styleWarn.Render(fmt.Sprintf("history: %d restored", h.History.Restored))})
	}
	p3 = append(p3, part{styleDim.Render("buffers: " + buffersView(h, true)), styleDim.Render(buffersView(h, false)), ""})
	if h != nil && h.Lost != nil && h.Lost.Total > 0 {
		long := fmt.Sprintf("%d lost on the way from the page", h.Lost.Total)
		if n := len(h.Lost.Recent); n > 0 {
			long = fmt.Sprintf("%d lost · last: %s", h.Lost.Total, clean(h.Lost.Recent[n-1]))
		}
		p3 = append(p3, part{styleWarn.Render(long), styleWarn.Render(fmt.Sprintf("%d lost", h.Lost.Total))})
	}
	if h != nil && h.EventsDropped > 0 {
		p3 = append(p3, part{styleWarn.Render(fmt.Sprintf("%d live events dropped for slow viewers", h.EventsDropped)),
			styleWarn.Render(fmt.Sprintf("%d dropped", h.EventsDropped))})
	}
	// Buffers go first, then the long forms, from the end of the line.
	var order []int
	for i := len(p3) - 1; i >= 0; i-- {
		for range p3[i] {
			order = append(order, i)
		}
	}
	p3, order = withSegments(hd.segments, 3, p3, order)
	l3 := squeeze(width, sep, p3, order)
	return strings.Join([]string{l1, l2, l3}, "\n")
}

// problemsCount is the doctor's problems in a few words.
func problemsCount(ps []doctor.Check) string {
	fails := 0
	for _, c := range ps {
		if c.Status == doctor.Fail {
			fails++
		}
	}
	if fails > 0 {
		return styleErr.Render(fmt.Sprintf("✗ doctor: %d problem(s)", fails)) + styleDim.Render(" (D)")
	}
	return styleWarn.Render(fmt.Sprintf("! doctor: %d warning(s)", len(ps))) + styleDim.Render(" (D)")
}

// problemsView is the doctor's problems in one field, the most severe
// first; short shows only the first and how many more.
func problemsView(ps []doctor.Check, short bool) string {
	mark := func(c doctor.Check, cells int) string {
		s := fit(clean(c.Name+": "+c.Detail), cells)
		if c.Status == doctor.Fail {
			return styleErr.Render("✗ " + s)
		}
		return styleWarn.Render("! " + s)
	}
	if short || len(ps) == 1 {
		cells := 0
		if short {
			cells = 32
		}
		s := mark(ps[0], cells)
		if len(ps) > 1 {
			s += styleWarn.Render(fmt.Sprintf(" +%d more", len(ps)-1))
		}
		return s + styleDim.Render(" (D)")
	}
	var out []string
	for _, c := range ps {
		out = append(out, mark(c, 0))
	}
	return strings.Join(out, " · ") + styleDim.Render(" (D)")
}

// connView is how the dashboard reaches the server; short for narrow
// terminals.
func connView(c ConnState, short bool) string {
	switch c.Phase {
	case Hosting:
		s := c.Addr + " · server in this process"
		if short {
			s = c.Addr + " · hosting"
		}
		if !c.TookOver.IsZero() {
			s += " (took over at " + c.TookOver.Local().Format("15:04:05") + ")"
		}
		return styleOK.Render(s)
	case Attached:
		if short {
			return styleOK.Render(c.Addr + " · attached")
		}
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

// extensionView is the extension's state: whole (0), without when it
// was seen (1), or in a mark and the words that matter (2).
func extensionView(h *Health, form int) string {
	s := extensionState(h)
	switch {
	case form == 1 && h != nil && h.Extension.Connected:
		s = "extension: " + styleOK.Render("● connected")
	case form == 1 && h != nil:
		s = "extension: " + styleErr.Render("○ not connected")
	case form == 2:
		s = extensionShort(h)
	}
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

func extensionShort(h *Health) string {
	switch {
	case h == nil:
		return "extension: ?"
	case h.Extension.Connected:
		return "extension: " + styleOK.Render("●")
	}
	return "extension: " + styleErr.Render("○ not connected")
}

// extensionTiny is the extension's state in a mark.
func extensionTiny(h *Health) string {
	switch {
	case h == nil:
		return "ext ?"
	case h.Extension.Connected:
		return "ext " + styleOK.Render("●")
	}
	return "ext " + styleErr.Render("○")
}

func seen(ms int64) string {
	if ms < 1000 {
		return "just now"
	}
	return ago(time.Duration(ms) * time.Millisecond)
}

// pilotView is the Web Pilot's state: enabled, off, blocked by you, or
// unknown while the extension is out of contact (never its last report).
// Why it is off follows the extension's state in h when there is one: the
// pilot's own report can lag the extension's connection by a poll.
func pilotView(p *Pilot, h *Health) string {
	switch {
	case p == nil:
		return styleDim.Render("unknown")
	case p.BlockedByUser:
		return styleHuman.Render("BLOCKED by you")
	case p.Enabled:
		return styleAI.Render("enabled")
	case pilotUnknown(p):
		return styleDim.Render("unknown " + pilotWhyUnknown(p, h))
	case h != nil && h.Extension.Connected:
		return "off (the extension's popup turns it on)"
	case h != nil && h.Extension.LastSeenMS > 0:
		return "off (extension silent)"
	case h != nil:
		return "off (no extension)"
	}
	return "off"
}

// pilotWhyUnknown says why the server does not know the switch, by the
// extension's state in h when there is one.
func pilotWhyUnknown(p *Pilot, h *Health) string {
	switch {
	case h != nil && h.Extension.Connected:
		return "(not reported yet)"
	case h != nil && h.Extension.LastSeenMS > 0:
		return "(extension silent)"
	case h != nil || p.Source == "never_connected":
		return "(no extension)"
	}
	return "(extension silent)"
}

// pilotUnknown says the server does not know the switch; a server that
// predates state says so by source alone.
func pilotUnknown(p *Pilot) bool {
	return p.State == "unknown" || (p.State == "" && (p.Source == "stale" || p.Source == "never_connected"))
}

// pilotShort is pilotView in a word.
func pilotShort(p *Pilot) string {
	switch {
	case p.BlockedByUser:
		return styleHuman.Render("BLOCKED")
	case p.Enabled:
		return styleAI.Render("on")
	case pilotUnknown(p):
		return styleDim.Render("?")
	}
	return "off"
}

// bufferKinds orders the buffers as the panes do.
var bufferKinds = []struct{ kind, label string }{
	{"logs", "logs"}, {"errors", "errors"}, {"network", "network"}, {"websocket_events", "ws"},
	{"network_bodies", "bodies"}, {"actions", "actions"},
}

// buffersView is each buffer's fill; without caps, only the counts.
func buffersView(h *Health, caps bool) string {
	if h == nil || len(h.Buffers) == 0 {
		return "?"
	}
	var parts []string
	listed := map[string]bool{}
	for _, b := range bufferKinds {
		if f, ok := h.Buffers[b.kind]; ok {
			parts = append(parts, fill(b.label, f, caps))
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
		parts = append(parts, fill(k, h.Buffers[k], caps))
	}
	return strings.Join(parts, " · ")
}

func fill(label string, f capture.Fill, caps bool) string {
	if caps {
		return fmt.Sprintf("%s %d/%d", label, f.Count, f.Cap)
	}
	return fmt.Sprintf("%s %d", label, f.Count)
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
