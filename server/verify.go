package server

import (
	"context"

	"github.com/gasoline-dev/gasoline/features/problem"
	"github.com/gasoline-dev/gasoline/features/verify"
)

// sessionIDParam names the verification session of the verify target;
// verifyReplayParam has watch replay the human's flow at once.
var (
	sessionIDParam    = newParam[string]("session_id", "")
	verifyReplayParam = newParam[bool]("replay", "")
)

// watchedAndReplayed is watch with replay: the watch's answer, then the
// replay's, whose requests and errors compare reads as the "after".
type watchedAndReplayed struct {
	Watch  any `json:"watch"`
	Replay any `json:"replay"`
}

func (an *analysis) analyzeVerify(ctx context.Context, a args) (any, error) {
	replay := verifyReplayParam.get(a)
	if replay && actionParam.get(a) != "watch" {
		return nil, problem.New(problem.InvalidParam, "replay goes with action watch: watch, then the human's flow replayed, then compare")
	}
	v, err := an.verify.Do(verify.Request{
		Action:    actionParam.get(a),
		SessionID: sessionIDParam.get(a),
		Label:     nameParam.get(a),
		URLFilter: filterParam.get(a),
	})
	if err != nil {
		return v, err
	}
	v = an.page.visualCheck(ctx, v)
	if !replay {
		return v, nil
	}
	r, err := an.replay(ctx)
	if err != nil {
		p := problem.From(err)
		return nil, problem.New(p.Code, "watching; the replay failed: %s", p.Message)
	}
	return watchedAndReplayed{Watch: v, Replay: r}, nil
}
