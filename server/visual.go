package server

import (
	"context"

	"github.com/gasoline-dev/gasoline/features/browser"
	"github.com/gasoline-dev/gasoline/features/verify"
	"github.com/gasoline-dev/gasoline/features/visual"
)

// verifyStarted and verifyCompared are verify's answers with the visual
// check (features/visual) beside them.
type verifyStarted struct {
	*verify.StartResult
	Visual *visual.Check `json:"visual,omitempty"`
}

// Brief implements verify.Brief.
func (r verifyStarted) Brief() string { return r.StartResult.Brief() + r.Visual.Brief() }

type verifyCompared struct {
	*verify.CompareResult
	Visual *visual.Check `json:"visual,omitempty"`
}

// Brief implements verify.Brief.
func (r verifyCompared) Brief() string { return r.CompareResult.Brief() + r.Visual.Brief() }

// visualShot is what the visual check captures: the viewport as PNG, so
// that only what changed on the page differs.
var visualShot = browser.ShotParams{Format: "png", MaxWidth: browser.DefaultShotWidth}

// visualCheck adds the visual check to a verify start or compare: a
// screenshot at start, another at compare and their difference.
func (lp *livePage) visualCheck(ctx context.Context, v any) any {
	if lp.visuals == nil {
		return v
	}
	shoot := func() ([]byte, error) {
		shot, _, err := lp.takeShot(ctx, visualShot, 0)
		return shot.Bytes, err
	}
	switch r := v.(type) {
	case *verify.StartResult:
		return verifyStarted{r, lp.visuals.Start(r.SessionID, shoot)}
	case *verify.CompareResult:
		return verifyCompared{r, lp.visuals.Compared(r.SessionID, shoot)}
	}
	return v
}
