package tui

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/reads"
)

// auditKeys are the Audit pane's own, besides the stream's: A shows every
// server's lines or this one's; L writes the AI's reads to the audit file
// too, or stops.
type auditKeys struct {
	AllServers, AuditReads key.Binding
}

// auditPane is the audit file's lines, this server's or every server's,
// the human's kept past a flood of the AI's; and the AI's reads, from the
// stream, which the human may have written to the file too.
type auditPane struct {
	*streamPane
	*common
	auditKeys auditKeys
	path      string // the audit file tailed
	port      int    // this server's, 0 until known
	all       bool   // every server's lines (A)
	reads     readsState
}

func newAuditPane(c *common) *auditPane {
	p := newStreamPane("Audit", fmt.Sprintf(auditFormat, "TIME", "WHO", "WHAT"),
		"No audit events yet. Every change the AI makes and every veto of yours appears here.")
	p.pin = func(r row) bool { l, ok := r.src.(audit.Line); return ok && humanLine(l) }
	p.pinned = newRing[row](maxPinned)
	p.order = inTimeOrder
	return &auditPane{streamPane: p, common: c, auditKeys: auditKeys{
		AllServers: key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "audit: this server/all")),
		AuditReads: key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "AI reads in audit file")),
	}}
}

// setServer takes the address of the server the dashboard reaches: its
// port names this server's lines.
func (p *auditPane) setServer(addr string) {
	p.port = 0
	if _, s, err := net.SplitHostPort(addr); err == nil {
		p.port, _ = strconv.Atoi(s)
	}
	p.scope()
}

// scope shows this server's lines (its port's), or every server's after A.
func (p *auditPane) scope() {
	port := p.port
	if p.all {
		port = 0
	}
	p.ShowPort(port)
	p.note = "every server (A: this one) · " + p.path
	if port != 0 {
		p.note = fmt.Sprintf("port %d only (A: all) · %s", port, p.path)
	}
}

// apply takes in the audit file's lines and the AI's reads.
func (p *auditPane) apply(msg tea.Msg) said {
	switch msg := msg.(type) {
	case AuditMsg:
		if msg.Path != p.path {
			p.path = msg.Path
			p.scope()
			p.empty = "No audit events yet in " + msg.Path + ". Every change the AI makes and every veto of yours appears here."
		}
		rows := make([]row, 0, len(msg.Lines))
		for _, l := range msg.Lines {
			if !p.readShown(l) {
				rows = append(rows, auditRow(l))
			}
		}
		p.add(rows)
	case ReadMsg:
		r := reads.Read(msg)
		if r.Seq != 0 && r.Seq <= p.reads.seq {
			return said{}
		}
		p.reads.seq, p.reads.last = r.Seq, &r
		p.add([]row{readRow(r)})
	case ReadsAuditMsg:
		p.reads.audited, p.reads.known = msg.AuditReads, true
	case readsToggled:
		p.reads.audited, p.reads.known = msg.on, true
		return said{text: msg.note}
	}
	return said{}
}

// readShown says whether an audit file line is a read this dashboard
// already shows from the stream: its own server's, written there because
// the human turned audit_reads on.
func (p *auditPane) readShown(l audit.Line) bool {
	return l.Parsed && l.Event.Event == "ai_read" && p.port != 0 && l.Event.Port == p.port
}

// Update takes A and L before the stream's keys.
func (p *auditPane) Update(msg tea.KeyMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, p.auditKeys.AllServers):
		p.all = !p.all
		p.scope()
		return nil, true
	case key.Matches(msg, p.auditKeys.AuditReads):
		return p.toggleReads(), true
	}
	return p.streamPane.Update(msg)
}

// ShortHelp is the pane's bar: A and L first; pause and clear work but
// are the streams' keys.
func (p *auditPane) ShortHelp(g globalKeys) []key.Binding {
	return []key.Binding{p.auditKeys.AllServers, p.auditKeys.AuditReads, g.Open, g.Filter, g.Copy}
}

// toggleReads turns writing the AI's reads to the audit file on or off.
func (p *auditPane) toggleReads() tea.Cmd {
	on := !p.reads.audited
	c := p.client
	if c == nil || !p.reads.known {
		return notice("audit_reads: this server does not say whether it writes the AI's reads")
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		got, err := c.SetAuditReads(ctx, on)
		if err != nil {
			return actionMsg{err: fmt.Errorf("audit_reads: %w", err)}
		}
		note := auditReadsWhat(got) + " (L)"
		return readsToggled{note: note, on: got}
	}
}
