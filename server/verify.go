package server

import (
	"context"

	"github.com/gasoline-dev/gasoline/features/verify"
)

// sessionIDParam names the verification session of the verify target.
var sessionIDParam = newParam[string]("session_id", "")

func (an *analysis) analyzeVerify(ctx context.Context, a args) (any, error) {
	v, err := an.verify.Do(verify.Request{
		Action:    actionParam.get(a),
		SessionID: sessionIDParam.get(a),
		Label:     nameParam.get(a),
		URLFilter: filterParam.get(a),
	})
	if err != nil {
		return v, err
	}
	return an.page.visualCheck(ctx, v), nil
}
