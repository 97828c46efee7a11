package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/doctor"
)

// Options configure Run.
type Options struct {
	// Addr is the server's host:port.
	Addr string
	// Hosting says the server runs in this process (else it is attached to).
	Hosting bool
	// Takeover starts a server in this process when the one attached to
	// goes away; nil never takes over.
	Takeover Takeover
	// Connect opens the dashboard at once, showing it connecting, and
	// calls Takeover first to host the server or find the one to attach
	// to (Hosting is then ignored). Its error ends Run.
	Connect bool
	// Doctor runs gasoline doctor's checks for the header; nil runs none.
	Doctor func(context.Context) doctor.Report
	// AuditLog is tailed until the server names the file it writes.
	AuditLog string
	// TokenFile holds the human token the server's veto API requires.
	TokenFile string
	// Logs, if set, carries the in-process server's log lines into the
	// dashboard while it runs.
	Logs *LogSink
	// Input and Output default to the terminal.
	Input  io.Reader
	Output io.Writer
}

// Run shows the dashboard until the human quits or ctx ends.
func Run(parent context.Context, opts Options) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	m, done := dial(ctx, opts, BatchEvery)
	if opts.Logs != nil {
		opts.Logs.attach(m.feed.Push)
		defer opts.Logs.detach()
	}
	popts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx), tea.WithMouseCellMotion()}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	m.copy.out = os.Stdout
	if opts.Output == nil {
		useTerminalColours()
	} else {
		popts = append(popts, tea.WithOutput(opts.Output))
		m.copy.out = opts.Output
	}
	m.copy.inTmux = os.Getenv("TMUX") != ""
	m.doc.run = opts.Doctor
	_, err := tea.NewProgram(m, popts...).Run()
	cancel()
	<-done
	if m.fatal != nil {
		return m.fatal
	}
	if errors.Is(err, tea.ErrProgramKilled) && parent.Err() != nil {
		return nil // ended from outside (a signal, or the server failed)
	}
	return err
}

// dial makes a model fed by a supervisor that streams from the server
// (and takes the port over when allowed). done closes when the supervisor
// has stopped, after ctx ends.
func dial(ctx context.Context, opts Options, every time.Duration) (*Model, <-chan struct{}) {
	client := NewClient("http://" + opts.Addr)
	client.TokenFile = opts.TokenFile
	f := newFeed(every, ctx.Done())
	m := New(Config{Client: client, Conn: ConnState{Phase: Connecting, Addr: opts.Addr}})
	m.feed = f
	phase := Attached
	if opts.Hosting {
		phase = Hosting
	}
	sup := &supervisor{client: client, stream: &http.Client{}, addr: opts.Addr, phase: phase,
		takeover: opts.Takeover, connect: opts.Connect, push: f.Push, auditLog: opts.AuditLog}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sup.run(ctx)
	}()
	return m, done
}

// LogSink is the in-process server's log while a dashboard owns the
// terminal: lines become LogMsg on the status line, and before and after
// the dashboard they go to the fallback writer (stderr).
type LogSink struct {
	mu       sync.Mutex
	fallback io.Writer
	push     func(tea.Msg)
	part     []byte
}

// NewLogSink returns a sink writing to fallback until a dashboard attaches.
func NewLogSink(fallback io.Writer) *LogSink { return &LogSink{fallback: fallback} }

// Write takes log output; it never blocks on the dashboard.
func (s *LogSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.push == nil {
		return s.fallback.Write(p)
	}
	s.part = append(s.part, p...)
	for {
		i := bytes.IndexByte(s.part, '\n')
		if i < 0 {
			break
		}
		s.push(LogMsg(s.part[:i]))
		s.part = s.part[i+1:]
	}
	return len(p), nil
}

func (s *LogSink) attach(push func(tea.Msg)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.push = push
}

func (s *LogSink) detach() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.push = nil
	if len(s.part) > 0 {
		s.fallback.Write(append(s.part, '\n'))
		s.part = nil
	}
}
