package server

import (
	"context"

	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/security"
)

// The parameters of the security target.
var (
	checksParam   = newParam[[]string]("checks", "").oneOf(security.AllChecks...)
	severityParam = newParam[string]("severity_min", "").oneOf(security.Severities...)
)

// analyzeSecurity audits whole buffers: a finding the newest 500 entries
// left out would be missed.
func (an *analysis) analyzeSecurity(_ context.Context, a args) (any, error) {
	o := security.Options{Checks: checksParam.get(a), URLFilter: filterParam.get(a), SeverityMin: severityParam.get(a)}
	if err := o.Validate(); err != nil {
		return nil, invalid("%v", err)
	}
	all := capture.Query{All: true}
	in := security.Input{
		Network: an.store.Network(all).Entries,
		Logs:    an.consoleEntries(),
		WS:      an.store.WSEvents(all).Entries,
		WSConns: an.store.WSConnections(all),
	}
	for _, b := range an.store.Bodies(all).Entries {
		in.Bodies = append(in.Bodies, security.Request{NetworkBody: b, Auth: security.AuthOf(b.HasAuthHeader)})
	}
	r := security.Audit(in, o)
	an.security.Set(r)
	return r, nil
}

// consoleEntries is every console entry held: the log buffer, and the
// errors a flood of logs pushed out of it, which outlive it in their own.
func (an *analysis) consoleEntries() []capture.LogEntry {
	all := capture.Query{All: true}
	logs := an.store.Logs(all).Entries
	if len(logs) < capture.LogCap {
		return logs
	}
	oldest := logs[len(logs)-1].TS.Time
	for _, e := range an.store.Errors(all).Entries {
		if e.TS.Before(oldest) {
			logs = append(logs, e)
		}
	}
	return logs
}
