package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// overrideKeys are the Overrides pane's: the selection, and x revokes, X
// revokes all, a allows again. x also acts from every other pane (on the
// newest override): the veto is one key.
type overrideKeys struct {
	listKeys
	Revoke, RevokeAll, Allow key.Binding
}

// overridesPane lists every capture setting with the AI's override and
// the human's veto, and revokes or allows with one key.
type overridesPane struct {
	*common
	keys     overrideKeys
	settings []Setting
	rules    []Rule // the human's approval rules, listed after the settings
	cursor   int    // index into the shown (filtered) settings, then rules
	filter   string
	q        query
	width    int
	height   int
}

func newOverridesPane(c *common) *overridesPane {
	return &overridesPane{common: c, keys: overrideKeys{listKeys: newListKeys(),
		Revoke:    key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "revoke")),
		RevokeAll: key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "revoke all")),
		Allow:     key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "allow again")),
	}}
}

// Title names the pane with the count of active overrides.
func (p *overridesPane) Title() string {
	if n := p.active(); n > 0 {
		return fmt.Sprintf("Overrides (%d)", n)
	}
	return "Overrides"
}

func (p *overridesPane) active() int {
	n := len(p.rules)
	for _, s := range p.settings {
		if s.Overridden() {
			n++
		}
	}
	return n
}

// set replaces the settings, keeping the selection on the same one.
func (p *overridesPane) set(o Overrides) {
	var sel string
	if cur, ok := p.selected(); ok {
		sel = cur.Name
	}
	p.settings = o.Settings
	if _, onRule := p.selectedRule(); onRule {
		return
	}
	p.cursor = 0
	for i, s := range p.shown() {
		if s.Name == sel {
			p.cursor = i
		}
	}
}

func (p *overridesPane) shown() []Setting {
	if p.q.empty() {
		return p.settings
	}
	var out []Setting
	for _, s := range p.settings {
		if p.q.match(row{text: s.Name + " " + s.Agent + " " + show(s.Value), src: s}, nil) {
			out = append(out, s)
		}
	}
	return out
}

func (p *overridesPane) selected() (Setting, bool) {
	sh := p.shown()
	if p.cursor < 0 || p.cursor >= len(sh) {
		return Setting{}, false
	}
	return sh[p.cursor], true
}

// SetSize gives the pane its share of the screen.
func (p *overridesPane) SetSize(w, h int) { p.width, p.height = w, h }

// SetFilter shows the settings that pass the filter s: their name, agent
// or value contain its words, ignoring case.
func (p *overridesPane) SetFilter(s string) error {
	q, err := parseQuery(s)
	if err != nil {
		return err
	}
	p.filter, p.q = strings.TrimSpace(s), q
	p.cursor = 0
	return nil
}

// Pick is the selected setting.
func (p *overridesPane) Pick() (any, string, bool) {
	if r, ok := p.selectedRule(); ok {
		return r, describeRule(r), true
	}
	s, ok := p.selected()
	state := "your setting"
	switch {
	case s.Revoked:
		state = "revoked by you"
	case s.Overridden():
		state = "set by AI " + s.Agent
	}
	return s, fmt.Sprintf("%s = %s (default %s, %s)", s.Name, show(s.Value), show(s.Default), state), ok
}

// Scroll moves the selection by n settings.
func (p *overridesPane) Scroll(n int) {
	p.cursor = max(0, min(len(p.shown())+len(p.shownRules())-1, p.cursor+n))
}

// Filter is the pane's filter.
func (p *overridesPane) Filter() string { return p.filter }

// Clear does nothing: the pane is state, not a stream.
func (p *overridesPane) Clear() {}

func (p *overridesPane) sync() {}

// Status counts what the AI holds and what the human revoked.
func (p *overridesPane) Status() string {
	rev := 0
	for _, s := range p.settings {
		if s.Revoked {
			rev++
		}
	}
	st := fmt.Sprintf("%d AI override(s) · %d revoked", p.active()-len(p.rules), rev)
	if p.filter != "" { // first: a narrow tab bar keeps what is before " · "
		st = fmt.Sprintf("filter %q: %d · %s", p.filter, len(p.shown()), st)
	}
	return st
}

// Update moves the selection, revokes and allows. Revoking asks nothing:
// the veto must be one key.
func (p *overridesPane) Update(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := p.keys
	n := len(p.shown()) + len(p.shownRules())
	switch {
	case key.Matches(msg, k.Up):
		p.cursor = max(0, p.cursor-1)
	case key.Matches(msg, k.Down):
		p.cursor = max(0, min(n-1, p.cursor+1))
	case key.Matches(msg, k.Top, k.PageUp):
		p.cursor = 0
	case key.Matches(msg, k.Bottom, k.PageDown):
		p.cursor = max(0, n-1)
	case key.Matches(msg, k.Revoke):
		if r, ok := p.selectedRule(); ok {
			return p.revokeRule(r), true
		}
		s, ok := p.selected()
		if !ok {
			return notice("nothing selected"), true
		}
		return p.revoke(s), true
	case key.Matches(msg, k.RevokeAll):
		// X takes back all the AI was given: its overrides and the
		// human's approval rules alike.
		rules := len(p.rules)
		return p.call(func(ctx context.Context) actionMsg {
			done, o, err := p.client.RevokeAll(ctx)
			// The list shown may be a moment old: end the server's rules
			// whatever it shows.
			if err == nil {
				_, err = p.client.RevokeRule(ctx, 0)
			}
			if rules > 0 {
				done = append(done, fmt.Sprintf("%d approval rule(s)", rules))
			}
			note := "nothing to revoke: the AI holds no override"
			if len(done) > 0 {
				note = "revoked " + strings.Join(done, ", ")
			}
			return actionMsg{note: note, err: err, overrides: &o}
		}), true
	case key.Matches(msg, k.Allow):
		if _, ok := p.selectedRule(); ok {
			return notice("a rule is revoked with x; a new one is made with a in the approval overlay"), true
		}
		s, ok := p.selected()
		if !ok {
			return notice("nothing selected"), true
		}
		if !s.Revoked {
			return notice(s.Name + " is not revoked: a allows a setting x revoked"), true
		}
		return p.call(func(ctx context.Context) actionMsg {
			o, err := p.client.Allow(ctx, s.Name)
			return actionMsg{note: "the AI may set " + s.Name + " again", err: err, overrides: &o}
		}), true
	default:
		return nil, false
	}
	return nil, true
}

// ShortHelp is the pane's bar: the veto's keys first.
func (p *overridesPane) ShortHelp(g globalKeys) []key.Binding {
	return []key.Binding{p.keys.Revoke, p.keys.RevokeAll, p.keys.Allow, g.Open}
}

// revoke takes s back from the AI.
func (p *overridesPane) revoke(s Setting) tea.Cmd {
	if s.Revoked {
		return notice(s.Name + " is already revoked; a allows the AI to set it again")
	}
	return p.call(func(ctx context.Context) actionMsg {
		o, err := p.client.Revoke(ctx, s.Name)
		return actionMsg{note: "revoked " + s.Name + ": the AI can no longer set it", err: err, overrides: &o}
	})
}

// newest is the AI override set last that the human has not revoked.
func (p *overridesPane) newest() (Setting, bool) {
	var best Setting
	found := false
	for _, s := range p.settings {
		if s.Overridden() && !s.Revoked && (!found || s.ChangedAt.After(*best.ChangedAt)) {
			best, found = s, true
		}
	}
	return best, found
}

// revokeNewest is x outside the Overrides pane: the newest AI override,
// whatever the human is looking at.
func (p *overridesPane) revokeNewest() tea.Cmd {
	s, ok := p.newest()
	if !ok {
		return notice("nothing to revoke: the AI holds no override")
	}
	return p.revoke(s)
}

// focusNewest puts the cursor on the newest AI override, the one the
// human most likely came to veto.
func (p *overridesPane) focusNewest() {
	s, ok := p.newest()
	if !ok {
		return
	}
	for i, sh := range p.shown() {
		if sh.Name == s.Name {
			p.cursor = i
		}
	}
}

func (p *overridesPane) call(fn func(context.Context) actionMsg) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return fn(ctx)
	}
}

// overrideCols are the Overrides table's columns; overrideShrink is the
// order they give up room in on a narrow terminal: STATE, what the veto is
// about, shrinks last.
var (
	overrideCols   = []column{{" ", 1}, {"SETTING", 12}, {"VALUE", 5}, {"DEFAULT", 5}, {"AGENT", 6}, {"CHANGED", 6}, {"STATE", 12}}
	overrideShrink = []int{4, 3, 2, 5, 1, 6}
)

// View renders the settings as a table, the selected one highlighted.
func (p *overridesPane) View() string {
	sh := p.shown()
	cells := make([][]string, len(sh))
	classes := make([]class, len(sh))
	for i, s := range sh {
		c, state := dim, "your setting"
		value, agent, changed := "·", "", ""
		if s.Overridden() {
			c, state = ai, "AI override"
			value, agent, changed = show(s.Value), s.Agent, ago(p.now().Sub(*s.ChangedAt))
		}
		if s.Revoked {
			c, state = human, "REVOKED by you (a allows)"
		}
		mark := " "
		if i == p.cursor {
			mark = "›"
		}
		cells[i] = []string{mark, s.Name, clean(value), show(s.Default), clean(agent), changed, state}
		classes[i] = c
	}
	titles := make([]string, len(overrideCols))
	for i, c := range overrideCols {
		titles[i] = c.title
	}
	widths := columnWidths(p.width, overrideCols, cells, overrideShrink)
	var b strings.Builder
	b.WriteString(styleColHead.Render(fit(tableLine(widths, titles), p.width)))
	if len(p.settings) == 0 {
		b.WriteString("\n" + styleDim.Render("Waiting for the server's capture settings…"))
	} else if len(sh) == 0 {
		b.WriteString("\n" + styleDim.Render(fmt.Sprintf("nothing matches %q (esc drops the filter)", p.filter)))
	}
	for i := range sh {
		line := fit(tableLine(widths, cells[i]), p.width)
		if i == p.cursor {
			line = styleSelected.Render(line)
		} else {
			line = classes[i].style().Render(line)
		}
		b.WriteString("\n" + line)
	}
	for _, l := range p.rulesView(len(sh)) {
		b.WriteString("\n" + l)
	}
	b.WriteString("\n\n" + styleDim.Render(fit("x revokes the selected setting or rule at once, X all, rules too; a revoked setting stays yours until a allows it.", p.width)))
	return lipgloss.NewStyle().Height(p.height).MaxHeight(p.height).Render(b.String())
}

// show renders a setting's value.
func show(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// ago is a short age: 5s, 3m, 2h, 4d.
func ago(d time.Duration) string {
	switch {
	case d < 0:
		return "now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
