package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/reads"
	"github.com/gasoline-dev/gasoline/server/wire"
)

// readSelectors are the tools whose calls are reads, by their selector.
var readSelectors = map[string]string{"observe": "what", "analyze": "target", "generate": "format"}

// readLog is what the server keeps of the AI's reads (features/reads):
// the ring, the human's audit_reads decision, and the declared parameters
// of the read tools, which say which values a summary may show.
type readLog struct {
	*reads.Log
	tools  func() []tool // the read tools, declared
	port   func() int
	audit  func(audit.Event)
	events *hub
	// save keeps the human's decisions; decided answers one, or says
	// that saving it failed.
	save    func() error
	decided func(http.ResponseWriter, any)
	once    sync.Once
	specs   map[string]reads.Declared // by tool
}

func (l *readLog) routes(r routes) {
	r.human("GET /api/reads", l.handleReads)
	r.human("POST /api/reads/audit", l.handleAudit)
}

// declared is the declaration of each read tool's parameters.
func (l *readLog) declared() map[string]reads.Declared {
	l.once.Do(func() {
		l.specs = map[string]reads.Declared{}
		for _, t := range l.tools() {
			d := reads.Declared{}
			for _, p := range t.specs() {
				d[p.name] = p.enum
			}
			l.specs[t.name] = d
		}
	})
	return l.specs
}

// record is the MCP middleware that notes every observe, analyze and
// generate call as it is answered: what it asked, what it got, for whom.
func (l *readLog) record(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sel, ok := readSelectors[req.Params.Name]
		if !ok {
			return next(ctx, req)
		}
		note := &readNote{}
		res, err := next(context.WithValue(ctx, readNoteKey{}, note), req)
		specs := l.declared()[req.Params.Name]
		a := req.GetArguments()
		r := reads.Read{At: time.Now(), Tool: req.Params.Name, Mode: specs.Value(sel, a[sel]), Asked: specs.Asked(sel, a),
			Agent: agent(ctx), Session: sessionTag(ctx), Port: l.port()}
		switch {
		case err != nil:
			r.Error = string(problem.Internal)
		case res != nil:
			text := resultText(res)
			r.Bytes = len(text) + imageBytes(res)
			if res.IsError {
				r.Error = string(problem.Internal)
				if note.code != "" {
					r.Error = string(note.code)
				}
			} else {
				r.Entries = note.entries
			}
		}
		l.note(r)
		return res, err
	}
}

// note keeps r, writes it to the audit file when the human asked for
// that, and shows it to the dashboard.
func (l *readLog) note(r reads.Read) {
	r = l.Add(r)
	if l.Audited() {
		l.audit(reads.Event(r))
	}
	l.events.publishHuman(wire.EventRead, r)
}

// sessionTag tells one MCP session from another without showing its id,
// which a client may use as a credential.
func sessionTag(ctx context.Context) string {
	sess := server.ClientSessionFromContext(ctx)
	if sess == nil || sess.SessionID() == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(sess.SessionID()))
	return hex.EncodeToString(sum[:4])
}

// resultText is the text the AI got.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// imageBytes is the size of the images an answer carries, decoded: a
// screenshot is what the AI read, not the few bytes of JSON beside it.
func imageBytes(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if img, ok := c.(mcp.ImageContent); ok {
			n += len(img.Data)/4*3 - strings.Count(img.Data[max(0, len(img.Data)-2):], "=")
		}
	}
	return n
}

// readNote carries, from a read tool's call to record, how many entries
// it answered, counted on its value before it is encoded, or the code it
// failed with.
type readNote struct {
	entries *int
	code    problem.Code
}

type readNoteKey struct{}

// noteAnswer tells record, when ctx is a read's, what the call answered.
func noteAnswer(ctx context.Context, v any, err error) {
	note, ok := ctx.Value(readNoteKey{}).(*readNote)
	switch {
	case !ok:
	case err != nil:
		note.code = problem.From(err).Code
	default:
		note.entries = entriesOf(v)
	}
}

// entriesOf is how many entries an answer holds: its Count, or the length
// of its Entries; nil when it is not a list.
func entriesOf(v any) *int {
	rv := reflect.Indirect(reflect.ValueOf(v))
	if rv.Kind() != reflect.Struct {
		return nil
	}
	if f := rv.FieldByName("Count"); f.IsValid() && f.CanInt() {
		n := int(f.Int())
		return &n
	}
	if f := rv.FieldByName("Entries"); f.IsValid() && f.Kind() == reflect.Slice {
		n := f.Len()
		return &n
	}
	return nil
}

// view is GET /api/reads and what the human's stream opens with.
func (l *readLog) view() wire.Reads {
	return wire.Reads{Reads: l.Recent(), Evicted: l.Evicted(), AuditReads: l.Audited()}
}

// handleReads is GET /api/reads (the human's): every read held.
func (l *readLog) handleReads(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, l.view())
}

// handleAudit is POST /api/reads/audit (the human's): the audit_reads
// decision, kept with the human's others and audited.
func (l *readLog) handleAudit(w http.ResponseWriter, r *http.Request) {
	var req struct {
		AuditReads *bool `json:"audit_reads"`
	}
	if err := decodeBody(r, &req); err != nil {
		writeProblem(w, err)
		return
	}
	if req.AuditReads == nil {
		writeProblem(w, problem.New(problem.InvalidParam, `want {"audit_reads": true|false}`))
		return
	}
	l.setAudit(*req.AuditReads, "dashboard")
	l.decided(w, wire.ReadsAudit{AuditReads: l.Audited()})
}

// setAudit is the human's audit_reads decision: saved, audited and
// shown to the dashboard when it changes.
func (l *readLog) setAudit(on bool, by string) {
	if !l.SetAudited(on) {
		return
	}
	_ = l.save()
	l.audit(audit.Event{Event: "audit_reads", To: on, Reason: by, Source: "human", Agent: "human"})
	l.events.publishHuman(wire.EventReadsAudit, wire.ReadsAudit{AuditReads: on})
}

// replay opens a human's stream with the decision and the reads held.
func (l *readLog) replay(write func(string, any) error) {
	v := l.view()
	write(wire.EventReadsAudit, wire.ReadsAudit{AuditReads: v.AuditReads})
	for _, r := range v.Reads {
		write(wire.EventRead, r)
	}
}
