package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gasoline-dev/gasoline/features/apicontract"
	"github.com/gasoline-dev/gasoline/features/audit"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/security"
	"github.com/gasoline-dev/gasoline/features/sessiondiff"
	"github.com/gasoline-dev/gasoline/features/snapshot"
	"github.com/gasoline-dev/gasoline/features/verify"
)

// The parameters of the modes that analyse what was captured. Each mode's
// domain rejects a bad value naming the valid ones, so no enum is spent on
// tools/list.
var (
	actionParam    = newParam[string]("action", "")
	checksParam    = newParam[[]string]("checks", "security: default all")
	severityParam  = newParam[string]("severity_min", "")
	ignoreParam    = newParam[[]string]("ignore_endpoints", "")
	sessionIDParam = newParam[string]("session_id", "")
	nameParam      = newParam[string]("name", "verify: label; diff: snapshot")
	compareBParam  = newParam[string]("compare_b", "diff: default current")
	filterParam    = urlParam.describe("")
)

// analysis is the state of the modes that read what was captured: the API
// contract tracker, fed as bodies arrive; verification sessions; named
// snapshots; the latest security audit, for generate sarif.
type analysis struct {
	contracts *apicontract.Tracker
	verify    *verify.Manager
	diffs     *sessiondiff.Store

	mu       sync.Mutex
	security *security.Report
}

// newAnalysis wires the analyses to store and to the page loads perf
// reports; now is their clock (nil: time.Now).
func newAnalysis(store *capture.Store, perf perf.LatestFunc, now func() time.Time, locate func(capture.LogEntry) string) *analysis {
	r := snapshot.NewReader(store, perf, now)
	r.SetLocate(locate)
	a := &analysis{contracts: apicontract.New(), verify: verify.New(r), diffs: sessiondiff.New(r)}
	// Shapes are learned on ingest: the bodies buffer keeps only the newest
	// 100, and a contract spans the whole session.
	store.Subscribe(func(ev capture.Event) {
		if b, ok := ev.Entry.(capture.NetworkBody); ok && ev.Kind == capture.KindBodies {
			a.contracts.Observe(b)
		}
	})
	return a
}

func (a *analysis) setSecurity(r security.Report) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.security = &r
}

func (a *analysis) latestSecurity() (security.Report, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.security == nil {
		return security.Report{}, false
	}
	return *a.security, true
}

// audited writes each call of an analysis mode to the audit log, so the
// dashboard shows what the AI looked at: the mode, its action, and the
// result in one line (or the error's code).
func (s *Server) audited(target string, run func(context.Context, args) (any, error)) func(context.Context, args) (any, error) {
	return func(ctx context.Context, a args) (any, error) {
		v, err := run(ctx, a)
		action := target
		if act := actionParam.get(a); act != "" {
			action += " " + act
		}
		var line string
		switch r := v.(type) {
		case interface{ Line() string }:
			line = r.Line()
		case interface{ Brief() string }:
			line = r.Brief()
		case apicontract.Report:
			line = fmt.Sprintf("%d endpoints tracked", len(r.Endpoints))
		}
		s.auditMode(ctx, "analyze", action, line, err)
		return v, err
	}
}

// auditMode writes the audit line of one AI call of a mode: the tool, the
// mode (and its action), what it found in one line, or the error's code.
func (s *Server) auditMode(ctx context.Context, tool, mode, result string, err error) {
	ev := audit.Event{Event: tool, Action: mode, Result: result, Source: "ai", Agent: agent(ctx)}
	if err != nil {
		ev.Result, ev.Error = "error", string(problem.From(err).Code)
	}
	s.audit(ev)
}

// analyzeSecurity audits whole buffers: a finding the newest 500 entries
// left out would be missed.
func (s *Server) analyzeSecurity(_ context.Context, a args) (any, error) {
	o := security.Options{Checks: checksParam.get(a), URLFilter: filterParam.get(a), SeverityMin: severityParam.get(a)}
	if err := o.Validate(); err != nil {
		return nil, invalid("%v", err)
	}
	all := capture.Query{All: true}
	in := security.Input{
		Network: s.store.Network(all).Entries,
		Logs:    s.consoleEntries(),
		WS:      s.store.WSEvents(all).Entries,
		WSConns: s.store.WSConnections(all),
	}
	for _, b := range s.store.Bodies(all).Entries {
		in.Bodies = append(in.Bodies, security.Request{NetworkBody: b, Auth: security.AuthOf(b.HasAuthHeader)})
	}
	r := security.Audit(in, o)
	s.an.setSecurity(r)
	return r, nil
}

// consoleEntries is every console entry held: the log buffer, and the
// errors a flood of logs pushed out of it, which outlive it in their own.
func (s *Server) consoleEntries() []capture.LogEntry {
	all := capture.Query{All: true}
	logs := s.store.Logs(all).Entries
	if len(logs) < capture.LogCap {
		return logs
	}
	oldest := logs[len(logs)-1].TS.Time
	for _, e := range s.store.Errors(all).Entries {
		if e.TS.Before(oldest) {
			logs = append(logs, e)
		}
	}
	return logs
}

// analyzeAPI reports contract violations, or with action report the shapes
// learned. Clearing them is configure's (analyze changes nothing).
func (s *Server) analyzeAPI(_ context.Context, a args) (any, error) {
	o := apicontract.Options{URLFilter: filterParam.get(a), Ignore: ignoreParam.get(a)}
	switch act := actionParam.get(a); act {
	case "", "analyze":
		return s.an.contracts.Analyze(o), nil
	case "report":
		return s.an.contracts.Report(o), nil
	default:
		return nil, invalid(`api: action %q is not one of analyze, report (to forget the shapes: configure{action:"clear",buffer:"api_shapes"})`, act)
	}
}

func (s *Server) analyzeVerify(ctx context.Context, a args) (any, error) {
	v, err := s.an.verify.Do(verify.Request{
		Action:    actionParam.get(a),
		SessionID: sessionIDParam.get(a),
		Label:     nameParam.get(a),
		URLFilter: filterParam.get(a),
	})
	if err != nil {
		return v, err
	}
	return s.visualCheck(ctx, v), nil
}

func (s *Server) analyzeDiff(_ context.Context, a args) (any, error) {
	return s.an.diffs.Do(sessiondiff.Request{
		Action:    actionParam.get(a),
		Name:      nameParam.get(a),
		CompareB:  compareBParam.get(a),
		URLFilter: filterParam.get(a),
	})
}
