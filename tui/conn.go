package tui

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gasoline-dev/gasoline/features/portretry"
)

// Takeover is called when the server the dashboard was attached to stopped
// answering. It should start a server in this process on the port and
// report true, or report false if another process already took the port
// over (the dashboard then attaches to that one). An error means neither
// worked this time; the dashboard tries again.
type Takeover func(ctx context.Context) (hosting bool, err error)

// silence is how long the stream may say nothing before the dashboard
// deems the server hung: it sends its status every second.
const silence = 3 * time.Second

// supervisor keeps the dashboard connected: it reads the event stream,
// and when the stream drops and the server is gone, takes the port over.
type supervisor struct {
	client   *Client
	stream   *http.Client // no timeout: the stream is long-lived
	addr     string
	phase    ConnPhase
	takeover Takeover
	// connect: the dashboard opened before the server was found, and
	// takeover hosts it or finds the one to attach to first.
	connect bool
	push    func(tea.Msg)
	// auditLog is tailed until the server names its own.
	auditLog string
	audit    follower
	seen     dedup // read by the stream goroutine only
}

// run streams until ctx ends.
func (s *supervisor) run(ctx context.Context) {
	defer s.audit.stop()
	s.seen = dedup{}
	s.audit.follow(s.auditLog, s.push)
	if s.connect && s.takeover != nil {
		hosting, err := s.takeover(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.push(FatalMsg{err})
			}
			return
		}
		s.phase = Attached
		if hosting {
			s.phase = Hosting
		}
	}
	var tookOver time.Time
	attempt := 0 // failed reconnects in a row, for portretry.Policy
	for ctx.Err() == nil {
		opened := false
		err := s.read(ctx, func() {
			opened = true
			attempt = 0
			s.push(ConnMsg{Phase: s.phase, Addr: s.addr, TookOver: tookOver})
		})
		if ctx.Err() != nil {
			return
		}
		s.push(ConnMsg{Phase: Reconnecting, Addr: s.addr, TookOver: tookOver, Err: err})
		// A server that still answers /health merely dropped the stream;
		// one that does not is gone, and the port is ours to take.
		if _, herr := s.client.Health(ctx); herr != nil && s.takeover != nil {
			hosting, terr := s.takeover(ctx)
			switch {
			case terr == nil && hosting:
				s.phase, tookOver = Hosting, time.Now()
				continue
			case terr == nil:
				s.phase = Attached
				continue
			default:
				s.push(ErrMsg{fmt.Errorf("take over %s: %w", s.addr, terr)})
			}
		}
		if opened {
			continue // it worked a moment ago: retry at once
		}
		if !portretry.Policy.Sleep(ctx, attempt) {
			return
		}
		attempt++
	}
}

// read opens the event stream and reads it until it fails; onOpen runs
// when the first line arrives.
func (s *supervisor) read(ctx context.Context, onOpen func()) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.client.Base+"/events/stream", nil)
	if err != nil {
		return err
	}
	// The token holds the dashboard's own stream slot: readers without
	// it cannot take every stream from the human.
	_ = s.client.sign(req)
	resp, err := s.stream.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /events/stream: %s", resp.Status)
	}
	watchdog := time.AfterFunc(silence, cancel)
	defer watchdog.Stop()
	first := true
	push := func(msg tea.Msg) {
		switch m := msg.(type) {
		case StatusMsg:
			if m.AuditLog != "" {
				s.audit.follow(m.AuditLog, s.push)
			}
		case seqEntry:
			if !s.seen.fresh(m) {
				return
			}
			msg = m.entry
		}
		s.push(msg)
	}
	return readStream(resp.Body, push, func() {
		watchdog.Reset(silence)
		if first {
			first = false
			onOpen()
		}
	})
}

// follower runs one audit tail at a time, moving it when the server names
// another file.
type follower struct {
	mu     sync.Mutex
	path   string
	cancel context.CancelFunc
	done   chan struct{}
}

// follow tails path, unless it already does, until the next follow or
// stop: the tail outlives any one stream connection on purpose.
func (f *follower) follow(path string, push func(tea.Msg)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if path == "" || path == f.path {
		return
	}
	f.stopLocked()
	ctx, cancel := context.WithCancel(context.Background())
	f.path, f.cancel, f.done = path, cancel, make(chan struct{})
	done := f.done
	go func() {
		defer close(done)
		if err := tailAudit(ctx, path, push); err != nil {
			push(ErrMsg{err})
		}
	}()
}

func (f *follower) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopLocked()
}

func (f *follower) stopLocked() {
	if f.cancel != nil {
		f.cancel()
		<-f.done
		f.cancel = nil
	}
}
