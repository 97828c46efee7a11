package server

import (
	"context"
	"time"

	"github.com/gasoline-dev/gasoline/features/apicontract"
	"github.com/gasoline-dev/gasoline/features/capture"
	"github.com/gasoline-dev/gasoline/features/perf"
	"github.com/gasoline-dev/gasoline/features/security"
	"github.com/gasoline-dev/gasoline/features/sessiondiff"
	"github.com/gasoline-dev/gasoline/features/snapshot"
	"github.com/gasoline-dev/gasoline/features/verify"
)

// The parameters of the modes that analyse what was captured. Each mode's
// domain rejects a bad value naming the valid ones, so no enum is spent on
// tools/list.
var (
	actionParam = newParam[string]("action", "")
	nameParam   = newParam[string]("name", "")
	filterParam = urlParam.describe("")
)

// analysis is the state of the modes that read what was captured: the API
// contract tracker, fed as bodies arrive; verification sessions; named
// snapshots; the latest security audit, for generate sarif.
type analysis struct {
	store     *capture.Store
	page      *livePage // verify's visual check
	contracts *apicontract.Tracker
	verify    *verify.Manager
	diffs     *sessiondiff.Store
	security  security.Latest
	// replay is watch with replay: the human's flow, replayed as interact does.
	replay func(ctx context.Context) (any, error)
}

// newAnalysis wires the analyses to store and to the page loads perf
// reports; now is their clock (nil: time.Now).
func newAnalysis(store *capture.Store, page *livePage, perf perf.LatestFunc, now func() time.Time, locate func(capture.LogEntry) string) *analysis {
	r := snapshot.NewReader(store, perf, now)
	r.SetLocate(locate)
	a := &analysis{store: store, page: page, contracts: apicontract.New(), verify: verify.New(r), diffs: sessiondiff.New(r)}
	// Shapes are learned on ingest: the bodies buffer keeps only the newest
	// 100, and a contract spans the whole session.
	store.Subscribe(func(ev capture.Event) {
		if b, ok := ev.Entry.(capture.NetworkBody); ok && ev.Kind == capture.KindBodies {
			a.contracts.Observe(b)
		}
	})
	return a
}
