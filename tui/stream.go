package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// row is one line of a stream pane.
type row struct {
	text   string // plain, one line, safe for the terminal
	styled string // text in its class's style, rendered once on arrival
	port   int    // the server an audit row came from
	tab    int    // the tab its entry came from (tabOf), 0 for none
	agent  string // the AI that owned the tab when the row came (withAgent)
	// src is what the row shows, whole, for the detail view: a capture
	// entry, an audit line, a notification sent to an AI.
	src any
	seq uint64 // the row's place in its pane: the selection's key
	// cut counts the characters of the entry the row's text left out
	// (clean's bound), for the length a cut row shows.
	cut int
	// at is when it happened, for the panes kept in time order (inTimeOrder);
	// a row without one takes the time of the row that came before it.
	at time.Time
}

// inTimeOrder orders rows by when they happened; rows of one time stay in the
// order they came. Events reach the dashboard out of time order: a
// WebSocket's close made by the server when its page left before the
// page's last messages, a read recorded as it ends beside an action.
func inTimeOrder(a, b row) int { return a.at.Compare(b.at) }

func newRow(c class, text string) row {
	if c == plain {
		return row{text: text, styled: text}
	}
	return row{text: text, styled: c.style().Render(text)}
}

// streamKeys are a stream pane's own: the selection, pause and clear.
type streamKeys struct {
	listKeys
	Pause, Clear key.Binding
}

func newStreamKeys() streamKeys {
	return streamKeys{listKeys: newListKeys(),
		Pause: key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "pause")),
		Clear: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "clear view")),
	}
}

// forPause is the keys as the bar names them: space resumes while paused.
func (k streamKeys) forPause(paused bool) streamKeys {
	if paused {
		k.Pause.SetHelp("space", "resume")
	}
	return k
}

func (k streamKeys) bindings() []key.Binding { return k.listKeys.bindings() }

// streamPane is a live, bounded, filterable list of rows that follows new
// ones unless the human moved the selection up or paused.
type streamPane struct {
	keys    streamKeys
	name    string
	colHead string // column titles
	note    string // right of the column titles
	empty   string // what an empty pane says
	rows    ring[row]
	held    ring[row] // arrived while paused
	filter  string    // as typed
	q       query     // filter, parsed
	// more is further text a row stands for (a request's bodies), for the
	// filter's free text; nil when there is none.
	more    func(any) []string
	paused  bool
	follow  bool
	vp      viewport.Model
	width   int
	dirty   bool
	shifted int // shown rows that scrolled off the top since the last sync
	matched int
	// port, when set, shows only the rows of the server on port.
	port int
	// tab, when set, shows only the rows of that tab (t); mark, when set,
	// marks a row as it comes (the AI that owns its tab).
	tab  int
	mark func(row) row
	// seq numbers rows as they arrive; sel is the selected row's (while
	// following, the newest row is selected and sel is 0).
	seq, sel uint64
	shown    []row // the rows that match, oldest first, as of the last sync
	cursor   int   // index of the selected row in shown; -1 when none
	// hidden is the newest row c hid: rows up to it stay in the pane,
	// unseen, until c again brings them back.
	hidden uint64
	// pin, when set, names the rows that stay when they would scroll away
	// (the human's audit lines under a flood of the AI's); they wait in
	// pinned, older than every row in rows, so the order holds.
	pin    func(row) bool
	pinned ring[row]
	// order, when set, sorts the shown rows (the Network pane's o).
	order  func(a, b row) int
	lastAt time.Time // the newest row's time (inTimeOrder)
	// narrow, when set, is a row as the pane's width shows it (the
	// Network pane drops columns before it cuts the URL).
	narrow func(row) row
}

func newStreamPane(name, colHead, empty string) *streamPane {
	vp := viewport.New(0, 0)
	return &streamPane{keys: newStreamKeys(), name: name, colHead: colHead, empty: empty, follow: true, vp: vp, cursor: -1,
		rows: newRing[row](PaneLines), held: newRing[row](PaneLines)}
}

// Title names the pane in the tab bar.
func (p *streamPane) Title() string { return p.name }

// add appends rows; while paused they wait, unseen.
func (p *streamPane) add(rows []row) {
	for _, r := range rows {
		if r.tab == 0 {
			r.tab = tabOf(r.src)
		}
		if p.mark != nil && r.agent == "" {
			r = p.mark(r)
		}
		if p.paused {
			p.held.push(r)
			continue
		}
		p.seq++
		r.seq = p.seq
		if r.at.IsZero() {
			r.at = p.lastAt
		}
		p.lastAt = r.at
		old, full := p.rows.push(r)
		switch {
		case full && p.pin != nil && p.pin(old):
			p.pinned.push(old)
		case full && p.match(old):
			p.shifted++
		}
	}
	if !p.paused && len(rows) > 0 {
		p.dirty = true
	}
}

func (p *streamPane) match(r row) bool {
	if (p.port != 0 && r.port != p.port) || (p.tab != 0 && r.tab != p.tab) || r.seq <= p.hidden {
		return false
	}
	return p.q.empty() || p.q.match(r, p.more)
}

// ShowPort shows only the rows of the server on port (0: every row).
func (p *streamPane) ShowPort(port int) {
	if p.port != port {
		p.port, p.follow, p.sel, p.dirty = port, true, 0, true
	}
}

// ShowTab shows only the rows of tab (0: every row).
func (p *streamPane) ShowTab(tab int) {
	if p.tab != tab {
		p.tab, p.follow, p.sel, p.dirty = tab, true, 0, true
	}
}

// SetSize gives the pane its share of the screen, column titles included.
func (p *streamPane) SetSize(w, h int) {
	p.width = w
	p.vp.Width, p.vp.Height = w, max(1, h-1)
	p.dirty = true
}

// SetFilter shows only the rows that pass the filter s (filter.go); a
// filter that does not parse changes nothing and says what is wrong.
func (p *streamPane) SetFilter(s string) error {
	q, err := parseQuery(s)
	if err != nil {
		return err
	}
	p.filter, p.q = strings.TrimSpace(s), q
	p.follow, p.sel = true, 0
	p.dirty = true
	return nil
}

// Filter is the pane's filter, as typed.
func (p *streamPane) Filter() string { return p.filter }

// Clear hides every row the pane has; a second Clear, before anything is
// hidden anew, brings them back. The server's buffers are untouched.
func (p *streamPane) Clear() {
	if p.hidden != 0 {
		p.hidden = 0
	} else {
		if p.held.len() > 0 { // held rows are the pane's too
			paused := p.paused
			p.paused = false
			p.held.each(func(r row) { p.add([]row{r}) })
			p.held.reset()
			p.paused = paused
		}
		p.hidden = p.seq
	}
	p.follow, p.sel = true, 0
	p.dirty = true
}

// cleared counts the rows c hides that the pane still has.
func (p *streamPane) cleared() int {
	if p.hidden == 0 {
		return 0
	}
	n := 0
	count := func(r row) {
		if r.seq <= p.hidden {
			n++
		}
	}
	p.pinned.each(count)
	p.rows.each(count)
	return n
}

// Paused says whether the pane holds new rows back.
func (p *streamPane) Paused() bool { return p.paused }

// Selected is the row under the cursor.
func (p *streamPane) Selected() (row, bool) {
	p.sync()
	if p.cursor < 0 || p.cursor >= len(p.shown) {
		return row{}, false
	}
	return p.shown[p.cursor], true
}

// Update handles the pane's own keys: the selection, pause and clear.
// handled is false for a key the pane has no use for.
func (p *streamPane) Update(msg tea.KeyMsg) (cmd tea.Cmd, handled bool) {
	p.sync()
	k := p.keys
	switch {
	case key.Matches(msg, k.Up):
		p.move(-1)
	case key.Matches(msg, k.Down):
		p.move(1)
	case key.Matches(msg, k.PageUp):
		p.move(-p.vp.Height)
	case key.Matches(msg, k.PageDown):
		p.move(p.vp.Height)
	case key.Matches(msg, k.Top):
		p.move(-len(p.shown))
	case key.Matches(msg, k.Bottom):
		p.move(len(p.shown))
	case key.Matches(msg, k.Pause):
		p.paused = !p.paused
		if !p.paused {
			p.held.each(func(r row) { p.add([]row{r}) })
			p.held.reset()
			p.dirty = true
		}
	case key.Matches(msg, k.Clear):
		p.Clear()
	default:
		return nil, false
	}
	return nil, true
}

// ShortHelp is the pane's bar: its keys and the root's that act on its
// rows (t and F are listed when g has them enabled).
func (p *streamPane) ShortHelp(g globalKeys) []key.Binding {
	k := p.keys.forPause(p.paused)
	return []key.Binding{g.Tabs, g.FreeTab, k.Pause, g.Open, g.Filter, k.Clear, g.Copy}
}

// move shifts the selection by n rows; past the newest, it follows again.
func (p *streamPane) move(n int) {
	if len(p.shown) == 0 {
		return
	}
	i := p.cursor
	if i < 0 {
		i = len(p.shown) - 1
	}
	i = max(0, min(len(p.shown)-1, i+n))
	if i == len(p.shown)-1 && n > 0 {
		p.follow, p.sel = true, 0
	} else {
		p.follow, p.sel = false, p.shown[i].seq
	}
	p.dirty = true
	p.sync()
}

// sync rebuilds the viewport's content after changes. It runs once per
// update at most, so a batch of a thousand rows costs one rebuild.
func (p *streamPane) sync() {
	if !p.dirty {
		return
	}
	p.shown = p.shown[:0]
	keep := func(r row) {
		if p.match(r) {
			p.shown = append(p.shown, r)
		}
	}
	p.pinned.each(keep)
	p.rows.each(keep)
	if p.order != nil {
		slices.SortStableFunc(p.shown, p.order)
	}
	p.matched = len(p.shown)
	p.cursor = len(p.shown) - 1
	if !p.follow {
		p.cursor = p.find(p.sel)
	}
	var b strings.Builder
	for i, r := range p.shown {
		if i > 0 {
			b.WriteByte('\n')
		}
		if p.narrow != nil {
			r = p.narrow(r)
		}
		switch {
		case i == p.cursor:
			b.WriteString(cutRow(r, p.width, true))
		case len(r.text) > p.width && p.width > 0:
			// Cut with a mark; a row that fits (bytes bound cells) is
			// written as it is, so a flood costs no measuring.
			b.WriteString(cutRow(r, p.width, false))
		default:
			b.WriteString(r.styled)
		}
	}
	off := p.vp.YOffset
	p.vp.SetContent(b.String())
	if p.follow {
		p.vp.GotoBottom()
	} else {
		// Keep the rows the human is reading in place, and the selection
		// in view.
		p.vp.SetYOffset(off - p.shifted)
		if p.cursor < p.vp.YOffset {
			p.vp.SetYOffset(p.cursor)
		} else if p.cursor >= p.vp.YOffset+p.vp.Height {
			p.vp.SetYOffset(p.cursor - p.vp.Height + 1)
		}
	}
	p.shifted, p.dirty = 0, false
}

// find is the index in shown of the row numbered seq, or of the oldest
// newer one when it scrolled away or no longer matches.
func (p *streamPane) find(seq uint64) int {
	for i, r := range p.shown {
		if r.seq >= seq {
			return i
		}
	}
	return len(p.shown) - 1
}

// cutRow is a row in w cells: whole when it fits, or cut with how much
// of it is left out ("… (+4,312 chars, Enter)": Enter shows it whole).
func cutRow(r row, w int, selected bool) string {
	text := r.styled
	if selected {
		text = r.text
	}
	if w <= 0 || (r.cut == 0 && lipgloss.Width(r.text) <= w) {
		if selected {
			return styleSelected.Render(text)
		}
		return text
	}
	total := utf8.RuneCountInString(r.text) + r.cut
	room := w - len(cutMark(total)) - 1
	if room < 10 { // too narrow for the length
		if selected {
			return styleSelected.Render(fitRow(r.text, w))
		}
		return fitRow(r.styled, w)
	}
	shown := ansi.Truncate(r.text, room, "")
	mark := cutMark(total - utf8.RuneCountInString(shown))
	if selected {
		return styleSelected.Render(shown + "…" + mark)
	}
	return ansi.Truncate(r.styled, room, "") + "…" + styleDim.Render(mark)
}

// cutMark says how much of a cut row is left out.
func cutMark(n int) string { return " (+" + thousands(n) + " chars, Enter)" }

// thousands writes n with commas: 4,312.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// fitRow cuts a row to w cells, marking the cut.
func fitRow(s string, w int) string {
	if w <= 0 || len(s) <= w {
		return s
	}
	return fit(s, w)
}

// View renders the pane: column titles, then rows.
func (p *streamPane) View() string {
	head := styleColHead.Render(fit(p.colHead, p.width))
	room := p.width - lipgloss.Width(p.colHead) - 2
	switch {
	case p.filter != "" && room > 10:
		// The filter in the pane's title, as long as it is on.
		f := fit(fmt.Sprintf("/%s · %d shown", clean(p.filter), p.matched), room)
		head += strings.Repeat(" ", p.width-lipgloss.Width(p.colHead)-lipgloss.Width(f)) + styleWarn.Render(f)
	case p.tab != 0 && room > 10:
		// The tab t shows, as long as it is on.
		f := fit(fmt.Sprintf("tab %d only (t: next)", p.tab), room)
		head += strings.Repeat(" ", p.width-lipgloss.Width(p.colHead)-lipgloss.Width(f)) + styleWarn.Render(f)
	case p.note != "" && room > 10:
		note := fitLeft(p.note, room)
		head += strings.Repeat(" ", p.width-lipgloss.Width(p.colHead)-lipgloss.Width(note)) + styleDim.Render(note)
	}
	if p.matched == 0 {
		msg := p.empty
		switch {
		case p.filter != "":
			msg = fmt.Sprintf("nothing matches %q (esc drops the filter)", p.filter)
		case p.tab != 0:
			msg = fmt.Sprintf("Nothing from tab %d yet (t shows the next tab, then every tab).", p.tab)
		case p.hidden != 0:
			msg = fmt.Sprintf("Cleared this view: %d earlier entries hidden (c brings them back). New ones appear here.", p.cleared())
		}
		return lipgloss.JoinVertical(lipgloss.Left, head,
			lipgloss.NewStyle().Width(p.vp.Width).Height(p.vp.Height).Render(styleDim.Render(fit(msg, p.width))))
	}
	return head + "\n" + p.vp.View()
}

// Status says whether the pane follows, for the tab bar.
func (p *streamPane) Status() string {
	var s string
	switch {
	case p.paused:
		s = fmt.Sprintf("PAUSED · %d new", p.held.len())
	case !p.follow:
		s = fmt.Sprintf("row %d/%d · end to follow", p.cursor+1, len(p.shown))
	default:
		s = "following"
	}
	if p.tab != 0 {
		s = fmt.Sprintf("%s · tab %d", s, p.tab)
	}
	if p.filter != "" { // after the state: the pane's title shows it too
		s = fmt.Sprintf("%s · filter %q: %d", s, p.filter, p.matched)
	}
	return s
}
