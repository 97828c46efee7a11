package wire

import "github.com/gasoline-dev/gasoline/features/reads"

// Events of what the AI read, on the human's event stream only (a stream
// opened with the token): a reader without it sees neither.
const (
	// EventRead carries a reads.Read: one observe, analyze or generate
	// call, as it is answered; the stream opens with the ones held.
	EventRead = "ai_read"
	// EventReadsAudit carries a ReadsAudit, on connect and each change.
	EventReadsAudit = "reads_audit"
)

// ReadsAudit is the human's audit_reads decision: whether the AI's reads
// are written to the audit file too.
type ReadsAudit struct {
	AuditReads bool `json:"audit_reads"`
}

// Reads is GET /api/reads: the reads held, oldest first, how many were let
// go to keep the ring within its bytes, and the audit_reads decision.
type Reads struct {
	Reads      []reads.Read `json:"reads"`
	Evicted    int64        `json:"evicted,omitempty"`
	AuditReads bool         `json:"audit_reads"`
}
