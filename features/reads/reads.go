// Package reads keeps what the AI read: every observe, analyze and
// generate call, newest last, in a ring bounded in bytes. The dashboard
// shows them beside what the AI changed. They are not audit lines: a read
// changes nothing, and an AI that polls would flood the audit file. The
// human may turn writing them to the audit file on (the audit_reads
// decision); until then they live in memory only.
package reads

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gasoline-dev/gasoline/features/audit"
)

// DefaultMaxBytes bounds the ring: a few thousand reads of a busy AI.
const DefaultMaxBytes = 512 << 10

// maxText bounds each text a read carries: a summary is a handful of
// parameter names and small values, a mode or client name a word.
const maxText = 160

// overhead is what a read costs beyond its texts: its numbers, the
// slice's slot and the JSON keys when it is sent.
const overhead = 128

// Read is one AI call that read what Gasoline holds.
type Read struct {
	Seq  uint64    `json:"seq"`
	At   time.Time `json:"at"`
	Tool string    `json:"tool"`
	Mode string    `json:"mode"`
	// Asked is what the call asked for, in brief: the names of the
	// parameters it passed, with the values of those that are numbers or
	// one of a fixed set (limit=20, level=error); never a free-text value.
	Asked string `json:"asked,omitempty"`
	Agent string `json:"agent"`
	// Session tells one AI session from another: a short hash of its MCP
	// session id, never the id itself.
	Session string `json:"session,omitempty"`
	// Entries is how many entries the answer held, when it is a list.
	Entries *int `json:"entries,omitempty"`
	// Bytes is the size of the answer the AI got: its text, and its
	// images decoded (a screenshot's JPEG, not its base64).
	Bytes int `json:"bytes"`
	// Error is the answer's error code when the call failed.
	Error string `json:"error,omitempty"`
	// Port is the port of the server that answered.
	Port int `json:"port,omitempty"`
}

// size is what r costs the ring.
func (r Read) size() int {
	return overhead + len(r.Tool) + len(r.Mode) + len(r.Asked) + len(r.Agent) + len(r.Session) + len(r.Error)
}

// capText keeps the start of s that fits maxText bytes, on a character
// boundary, marked with … when cut.
func capText(s string) string {
	if len(s) <= maxText {
		return s
	}
	cut := maxText - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// Log is the ring of reads and the human's choice to audit them. Safe for
// concurrent use.
type Log struct {
	max     int
	audited atomic.Bool

	mu      sync.Mutex
	buf     []Read // oldest first
	bytes   int
	seq     uint64
	evicted int64
}

// New returns an empty log holding at most maxBytes of reads
// (DefaultMaxBytes when maxBytes <= 0). Its sequence starts from the
// clock, so that a dashboard that saw an earlier server's reads does not
// take this one's for repeats.
func New(maxBytes int) *Log {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Log{max: maxBytes, seq: uint64(time.Now().UnixMicro())}
}

// Add keeps r, its texts capped and its Seq set, dropping the oldest reads
// while the ring holds more than its bytes; it returns r as kept.
func (l *Log) Add(r Read) Read {
	for _, p := range []*string{&r.Tool, &r.Mode, &r.Asked, &r.Agent, &r.Session, &r.Error} {
		*p = capText(*p)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	r.Seq = l.seq
	l.buf = append(l.buf, r)
	l.bytes += r.size()
	n := 0
	for l.bytes > l.max && n < len(l.buf)-1 {
		l.bytes -= l.buf[n].size()
		n++
	}
	if n > 0 {
		l.evicted += int64(n)
		// Copy down rather than reslice, so the evicted reads' texts are
		// let go now rather than when the array next grows.
		l.buf = append(l.buf[:0], l.buf[n:]...)
	}
	return r
}

// Recent is every read the ring holds, oldest first.
func (l *Log) Recent() []Read {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Read, len(l.buf))
	copy(out, l.buf)
	return out
}

// Bytes is what the ring holds now, as it counts it.
func (l *Log) Bytes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bytes
}

// Evicted is how many reads the ring let go to stay within its bytes.
func (l *Log) Evicted() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.evicted
}

// Audited says whether the human asked for reads in the audit file.
func (l *Log) Audited() bool { return l.audited.Load() }

// SetAudited is the human's choice; it reports whether it changed.
func (l *Log) SetAudited(on bool) bool { return l.audited.Swap(on) != on }

// Event is the audit line of r: event ai_read, the tool in name, the mode
// in action, what it asked in reason.
func Event(r Read) audit.Event {
	ev := audit.Event{TS: r.At.UTC().Format("2006-01-02T15:04:05.000Z"), Event: "ai_read", Name: r.Tool, Action: r.Mode,
		Reason: r.Asked, Source: "ai", Agent: r.Agent, Result: "ok", Bytes: r.Bytes}
	if r.Entries != nil {
		ev.Entries = *r.Entries
	}
	if r.Error != "" {
		ev.Result, ev.Error = "error", r.Error
	}
	return ev
}
