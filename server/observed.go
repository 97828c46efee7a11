package server

import (
	"context"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gasoline-dev/gasoline/features/capturectl"
)

// riders are what rides along with every observe answer, whatever the
// mode: what the human pointed at and the session has not read (first, so
// the AI reads it first), and the capture alerts it has not seen. Each
// observe answer type embeds them, so they are fields of the answer and
// nothing is spliced into its JSON.
type riders struct {
	HumanPointed []string           `json:"human_pointed,omitempty"`
	Alerts       []capturectl.Alert `json:"alerts,omitempty"`
}

func (r *riders) ride() *riders { return r }

// observed is an observe answer: a pointer to a type that embeds riders.
type observed interface{ ride() *riders }

// riding has a mode's answer carry what rides along: the losses within a
// buffer read's range, the console calls log_level left out on logs, the
// alerts and what the human pointed at.
func (s *Server) riding(name string, run func(context.Context, args) (any, error)) func(context.Context, args) (any, error) {
	return func(ctx context.Context, a args) (any, error) {
		v, err := run(ctx, a)
		if err != nil {
			return nil, err
		}
		o, ok := v.(observed)
		if !ok {
			// Nothing is taken that it cannot carry: the alerts and what
			// the human pointed at ride on the next observe instead
			// (TestEveryObserveModeCarriesRiders keeps every mode typed).
			return v, nil
		}
		if p, ok := v.(*page); ok {
			p.Lost = lostWithin(s.losses, name, p)
			if name == "logs" {
				p.Filtered = s.filtered.view()
			}
		}
		r := o.ride()
		if sess := server.ClientSessionFromContext(ctx); sess != nil {
			r.Alerts = s.alerts.take(sess.SessionID(), s.control.Controller)
		}
		r.HumanPointed = s.pointed.unreadLines(ctx)
		return v, nil
	}
}
