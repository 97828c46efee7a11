package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	tea "github.com/charmbracelet/bubbletea"

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

// readsToggled is the server's answer to L.
type readsToggled struct {
	note string
	on   bool
}
