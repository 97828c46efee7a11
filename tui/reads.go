package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/reads"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// ReadMsg is one observe, analyze or generate call of an AI, as the
// server answered it (the human's stream only).
type ReadMsg reads.Read

// ReadsAuditMsg is the human's audit_reads decision.
type ReadsAuditMsg wire.ReadsAudit

// readsState is what the dashboard knows of the AI's reads: the newest,
// for the header, and whether the human has them written to the audit
// file. The rows themselves are in the Audit pane.
type readsState struct {
	last    *reads.Read
	seq     uint64 // the newest seen: a reconnect's replay is not shown twice
	audited bool
	known   bool // the server said whether they are audited
}

// decodeRead turns the stream's read events into messages; nil for any
// other event.
func decodeRead(event string, data []byte) tea.Msg {
	switch event {
	case wire.EventRead:
		var r ReadMsg
		if json.Unmarshal(data, &r) == nil {
			return r
		}
	case wire.EventReadsAudit:
		var a ReadsAuditMsg
		if json.Unmarshal(data, &a) == nil {
			return a
		}
	}
	return nil
}

// applyReads takes in what concerns the reads and the traffic the header
// draws: a read becomes a dim row of the Audit pane, entries are counted.
func (m *Model) applyReads(msg tea.Msg) {
	switch msg := msg.(type) {
	case ReadMsg:
		r := reads.Read(msg)
		if r.Seq != 0 && r.Seq <= m.reads.seq {
			return
		}
		m.reads.seq, m.reads.last = r.Seq, &r
		m.audit.add([]row{readRow(r)})
	case ReadsAuditMsg:
		m.reads.audited, m.reads.known = msg.AuditReads, true
	case readsToggled:
		m.reads.audited, m.reads.known = msg.on, true
		m.setNote(msg.note, false)
	case EntriesMsg:
		m.traffic.count(msg, m.now())
	}
}

// readShown says whether an audit file line is a read this dashboard
// already shows from the stream: its own server's, written there because
// the human turned audit_reads on.
func (m *Model) readShown(l audit.Line) bool {
	if !l.Parsed || l.Event.Event != "ai_read" {
		return false
	}
	_, p, err := net.SplitHostPort(m.conn.Addr)
	port, _ := strconv.Atoi(p)
	return err == nil && l.Event.Port == port
}

// readRow is a read in the Audit pane: dim, beside the AI's changes.
func readRow(r reads.Read) row {
	what := "read " + readWhat(r)
	if r.Error != "" {
		what += " ✗ " + r.Error
	} else {
		what += " · " + readSize(r)
	}
	if r.Asked != "" {
		what += " · " + r.Asked
	}
	row := newRow(dim, fmt.Sprintf(auditFormat, stamp(r.At), clean("AI ◁ "+r.Agent), clean(what)))
	row.port, row.src, row.at = r.Port, r, r.At
	return row
}

// auditReadsWhat is the human's audit_reads change in the Audit pane.
func auditReadsWhat(on bool) string {
	if on {
		return "AI reads: written to the audit file too"
	}
	return "AI reads: shown here only, not in the audit file"
}

// readWhat names what a read asked for: observe's by its mode alone.
func readWhat(r reads.Read) string {
	if r.Tool == "observe" {
		return r.Mode
	}
	return r.Tool + " " + r.Mode
}

// readSize is how much a read got: its entries when it was a list.
func readSize(r reads.Read) string {
	if r.Entries == nil {
		return byteSize(r.Bytes)
	}
	if *r.Entries == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", *r.Entries)
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// SetAuditReads is the human's audit_reads decision.
func (c *Client) SetAuditReads(ctx context.Context, on bool) (bool, error) {
	var a wire.ReadsAudit
	err := c.do(ctx, http.MethodPost, "/api/reads/audit", wire.ReadsAudit{AuditReads: on}, &a)
	return a.AuditReads, err
}

// toggleAuditReads turns writing the AI's reads to the audit file on or
// off.
func (m *Model) toggleAuditReads() tea.Cmd {
	on := !m.reads.audited
	c := m.client
	if c == nil || !m.reads.known {
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

// readsToggled is the server's answer to L.
type readsToggled struct {
	note string
	on   bool
}
