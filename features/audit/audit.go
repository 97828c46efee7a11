// Package audit writes Gasoline's audit log: one self-contained JSON event
// per line, for every AI-initiated change and every human veto. The log
// rotates by size, and several Gasoline processes may append to one file.
// The human's lines are also kept in a file of their own (HumanPath), which
// the log's rotation never touches, so no flood of other lines can push
// them out. Tail follows the log, across those rotations, for the
// dashboard, starting with the human's kept lines.
package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Defaults from the spec.
const (
	DefaultMaxSize = 10 << 20
	DefaultKeep    = 3
)

// Event is one audit line. Fields that do not apply are left out, except
// source and agent, which every line states.
type Event struct {
	TS      string `json:"ts"`
	Event   string `json:"event"`
	Setting string `json:"setting,omitempty"`
	From    any    `json:"from,omitempty"`
	To      any    `json:"to,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Source is who the line's evidence comes from: ai (an MCP client),
	// human (the dashboard or the token-holding human API), extension
	// (what the extension reported), server, or unknown.
	Source string `json:"source"`
	Agent  string `json:"agent"`
	// Pilot actions.
	Action   string `json:"action,omitempty"`
	Selector string `json:"selector,omitempty"`
	Name     string `json:"name,omitempty"`
	SHA256   string `json:"sha256,omitempty"`
	Script   string `json:"script,omitempty"`
	Result   string `json:"result,omitempty"`
	Error    string `json:"error,omitempty"`
	// LatencyMS is how long a human took to answer an approval.
	LatencyMS int64 `json:"latency_ms,omitempty"`
	// RuleID and Rule name the approval rule a line is about: made, a call
	// it approved, its end.
	RuleID uint64 `json:"rule_id,omitempty"`
	Rule   string `json:"rule,omitempty"`
	// Entries and Bytes are the size of what an AI read (ai_read).
	Entries int `json:"entries,omitempty"`
	Bytes   int `json:"bytes,omitempty"`
	// Tab is the tab a pilot action acted on (0: the human's tracked tab).
	Tab int `json:"tab,omitempty"`
	// ReplayID ties the steps of one replay of the human's flow.
	ReplayID string `json:"replay_id,omitempty"`
	// Port and PID name the server that wrote the line: several servers,
	// on several ports and one after another on a port, share one file.
	Port int `json:"port,omitempty"`
	PID  int `json:"pid"`
}

// Log appends events to a JSONL file. A Log whose file cannot be opened
// warns once and drops events: auditing is best-effort, never a reason for
// capture control to fail. Safe for concurrent use, across processes too.
type Log struct {
	path    string
	maxSize int64
	keep    int
	warn    io.Writer
	now     func() time.Time
	pid     int
	port    atomic.Int32

	mu     sync.Mutex
	main   sink
	human  sink
	lock   *os.File
	warned bool
}

// sink is one file the log appends to and rotates.
type sink struct {
	path string
	f    *os.File
}

// Option configures a Log.
type Option func(*Log)

// WithMaxSize rotates the file once it would pass n bytes.
func WithMaxSize(n int64) Option { return func(l *Log) { l.maxSize = n } }

// WithClock sets the time source of event timestamps.
func WithClock(now func() time.Time) Option { return func(l *Log) { l.now = now } }

// Open prepares the log at path, creating its directory. It never fails:
// problems are reported once to warn and the log then drops events.
func Open(path string, warn io.Writer, opts ...Option) *Log {
	l := &Log{path: path, maxSize: DefaultMaxSize, keep: DefaultKeep, warn: warn, now: time.Now, pid: os.Getpid(),
		main: sink{path: path}, human: sink{path: HumanPath(path)}}
	for _, o := range opts {
		o(l)
	}
	if l.warn == nil {
		l.warn = io.Discard
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ready()
	return l
}

// SetPort names the port of the server writing, on every later line.
func (l *Log) SetPort(port int) { l.port.Store(int32(port)) }

// Path is the file the log writes.
func (l *Log) Path() string { return l.path }

// HumanPath is the file that keeps the human's lines of the log at path:
// audit.jsonl keeps them in audit.human.jsonl.
func HumanPath(path string) string {
	if base, ok := strings.CutSuffix(path, ".jsonl"); ok {
		return base + ".human.jsonl"
	}
	return path + ".human"
}

// ready opens the file and its lock if they are not open; false (after one
// warning) when that is impossible. The caller holds l.mu.
func (l *Log) ready() bool {
	if l.main.f != nil {
		return true
	}
	err := os.MkdirAll(filepath.Dir(l.path), 0o700)
	if err == nil {
		l.lock, err = os.OpenFile(l.path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	}
	if err == nil {
		err = l.main.reopen()
	}
	if err != nil {
		if !l.warned {
			fmt.Fprintf(l.warn, "gasoline: warning: audit log disabled: %v\n", err)
			l.warned = true
		}
		l.closeFiles()
		return false
	}
	return true
}

// Write appends one event, stamping ts when it is empty. Every value is
// capped (Cap), so the line stays under MaxLine bytes. A human's line
// (source human) goes to HumanPath as well.
func (l *Log) Write(e Event) error {
	if e.TS == "" {
		e.TS = l.now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	if e.PID == 0 {
		e.PID, e.Port = l.pid, int(l.port.Load())
	}
	capEvent(&e)
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode audit event: %w", err)
	}
	line = append(line, '\n')

	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ready() {
		return nil
	}
	// The lock file serialises writers and rotation across processes.
	if err := syscall.Flock(int(l.lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock audit log: %w", err)
	}
	defer syscall.Flock(int(l.lock.Fd()), syscall.LOCK_UN)
	// The main log first: a line in the human's file is always in the log.
	if err := l.main.append(line, l.maxSize, l.keep); err != nil {
		return err
	}
	if e.Source == "human" {
		return l.human.append(line, l.maxSize, l.keep)
	}
	return nil
}

// append writes line, rotating the file first when it would pass maxSize.
func (s *sink) append(line []byte, maxSize int64, keep int) error {
	if err := s.follow(); err != nil {
		return err
	}
	if st, err := s.f.Stat(); err == nil && st.Size() > 0 && st.Size()+int64(len(line)) > maxSize {
		if err := s.rotate(keep); err != nil {
			return err
		}
	}
	// One write call per line: with O_APPEND it lands whole at the end.
	if _, err := s.f.Write(line); err != nil {
		return fmt.Errorf("write audit log: %w", err)
	}
	return nil
}

// follow (re)opens the file when it is not open, or when another process
// rotated or removed it.
func (s *sink) follow() error {
	if s.f != nil {
		have, err1 := s.f.Stat()
		want, err2 := os.Stat(s.path)
		if err1 == nil && err2 == nil && os.SameFile(have, want) {
			return nil
		}
	}
	return s.reopen()
}

func (s *sink) reopen() error {
	s.close()
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("reopen audit log: %w", err)
	}
	s.f = f
	return nil
}

// rotate shifts path → .1 → .2 → .3, dropping the oldest.
func (s *sink) rotate(keep int) error {
	os.Remove(s.path + "." + strconv.Itoa(keep))
	for i := keep - 1; i >= 1; i-- {
		os.Rename(s.path+"."+strconv.Itoa(i), s.path+"."+strconv.Itoa(i+1))
	}
	if err := os.Rename(s.path, s.path+".1"); err != nil {
		return fmt.Errorf("rotate audit log: %w", err)
	}
	return s.reopen()
}

func (s *sink) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// Close releases the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closeFiles()
	return nil
}

func (l *Log) closeFiles() {
	l.main.close()
	l.human.close()
	if l.lock != nil {
		l.lock.Close()
		l.lock = nil
	}
}
